// The site session cookie: signing in (a simulator convention), the Origin allowlist for
// mutating requests, the one account-owned rate window, and the end of a session.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSim, type Sim } from "./support/harness.ts";
import { signIn, site } from "./support/site.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

/** A session request: no Authorization, the cookie, and an Origin when given. */
function asSession(cookie: string, origin?: string): Record<string, string> {
  return origin ? { cookie, origin } : { cookie };
}

describe("signing in", () => {
  it("AUTH-3 ACC-2: POST /site/sign-in with an account id sets the gh_session cookie, and /v1 accepts it as the session channel", async () => {
    const r = await site(sim, "POST", "/site/sign-in", { json: { account_id: "acc_demo" } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ account_id: "acc_demo", cookie_name: "gh_session" });
    expect(r.headers.get("set-cookie")).toMatch(/^gh_session=ghs_[A-Z0-9]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(r.json.cookie).toBe(r.headers.get("set-cookie")!.split(";")[0]);
    const who = await sim.get("/v1/whoami", { key: null, headers: { cookie: r.json.cookie } });
    expect(who.status).toBe(200);
    expect(who.json).toMatchObject({ user_id: "acc_demo", channel: "session", key_id: r.json.session_id });
    // Another account's session sees that account.
    const other = await signIn(sim, "acc_other");
    expect((await sim.get("/v1/me", { key: null, headers: { cookie: other } })).json.id).toBe("acc_other");
  });

  it("AUTH-3: the HTML form signs in with a demo key's account and returns to a page of this server, never elsewhere", async () => {
    const page = await site(sim, "GET", "/site/sign-in?return_to=/site/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('name="account_id" value="acc_demo"');
    const r = await site(sim, "POST", "/site/sign-in", { form: { api_key: "ghk_demo_other", return_to: "/oauth/authorize?x=1" } });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/oauth/authorize?x=1");
    const cookie = r.headers.get("set-cookie")!.split(";")[0]!;
    expect((await sim.get("/v1/whoami", { key: null, headers: { cookie } })).json.user_id).toBe("acc_other");
    // An address elsewhere is not followed (no open redirect).
    const away = await site(sim, "POST", "/site/sign-in", { form: { account_id: "acc_demo", return_to: "//evil.example/x" } });
    expect(away.location).toBe("/site/");
  });

  it("AUTH-3: signing in needs a known account or key", async () => {
    const unknown = await site(sim, "POST", "/site/sign-in", { json: { account_id: "acc_nobody" } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe("invalid_request");
    const page = await site(sim, "POST", "/site/sign-in", { form: { api_key: "ghk_nope" } });
    expect(page.status).toBe(400);
    expect(page.text).toContain("No such API key.");
  });

  it("AUTH-7: without a live session the cookie is no credential: sign-out, an unknown cookie and an expired session answer 401 unauthorized", async () => {
    const cookie = await signIn(sim);
    const out = await site(sim, "POST", "/site/sign-out", { headers: { cookie, accept: "application/json" } });
    expect(out.json).toEqual({ signed_out: true });
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    for (const c of [cookie, "gh_session=ghs_UNKNOWN", "other=1"]) {
      const r = await sim.get("/v1/me", { key: null, headers: { cookie: c } });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe("unauthorized");
    }
    const later = await signIn(sim);
    await sim.advance(7 * 86_400);
    expect((await sim.get("/v1/me", { key: null, headers: { cookie: later } })).json.error.code).toBe("unauthorized");
  });

  it("AUTH-4: an Authorization header wins over the cookie", async () => {
    const cookie = await signIn(sim, "acc_other");
    const r = await sim.get("/v1/whoami", { key: "ghk_demo_full", headers: { cookie } });
    expect(r.json).toMatchObject({ user_id: "acc_demo", channel: "api_key" });
  });
});

describe("the Origin allowlist", () => {
  it("AUTH-3 LIM-2: a mutating session request without an allowed Origin answers 403 origin_mismatch, without RateLimit headers and without spending the window", async () => {
    const cookie = await signIn(sim);
    const before = await sim.get("/v1/me", { key: null, headers: asSession(cookie) });
    const remaining = before.headers.get("ratelimit");
    for (const origin of [undefined, "https://evil.example", "null", "http://127.0.0.1.evil.example"]) {
      const r = await sim.post("/v1/subscription/cancel", undefined, { key: null, headers: asSession(cookie, origin) });
      expect(r.status, String(origin)).toBe(403);
      expect(r.json.error.code).toBe("origin_mismatch");
      expect(r.headers.get("ratelimit")).toBeNull();
      expect(r.headers.get("ratelimit-policy")).toBeNull();
    }
    const after = await sim.get("/v1/me", { key: null, headers: asSession(cookie) });
    // One request later: the refusals spent nothing.
    expect(Number(/r=(\d+)/.exec(after.headers.get("ratelimit")!)![1])).toBe(Number(/r=(\d+)/.exec(remaining!)![1]) - 1);
  });

  it("AUTH-3: reads need no Origin; the simulator's own address and loopback origins are allowed by default", async () => {
    const cookie = await signIn(sim);
    expect((await sim.get("/v1/me", { key: null, headers: asSession(cookie, "https://evil.example") })).status).toBe(200);
    for (const origin of [sim.url, "http://localhost:5173", "http://127.0.0.1:3000", "https://localhost"]) {
      const r = await sim.post("/v1/generations/status", { ids: [] }, { key: null, headers: asSession(cookie, origin) });
      expect(r.status, origin).toBe(200);
    }
    // The same request with a key needs no Origin at all (never origin_mismatch for API keys).
    expect((await sim.post("/v1/generations/status", { ids: [] }, { headers: { origin: "https://evil.example" } })).status).toBe(200);
  });

  it("AUTH-3: a configured allowlist replaces the loopback default; the simulator's own address stays allowed", async () => {
    const strict = await startSim({ session: { allowedOrigins: ["https://app.example"] } });
    try {
      const cookie = await signIn(strict);
      const post = (origin: string) => strict.post("/v1/generations/status", { ids: [] }, { key: null, headers: asSession(cookie, origin) });
      expect((await post("https://app.example")).status).toBe(200);
      expect((await post(strict.url)).status).toBe(200);
      expect((await post("http://localhost:5173")).json.error.code).toBe("origin_mismatch");
    } finally {
      await strict.close();
    }
  });
});

describe("the session's rate window", () => {
  it("AUTH-3 LIM-1 LIM-4: a session call has one account-owned window: the keys' windows are neither spent nor applied", async () => {
    const small = await startSim({ rateLimits: { keyQuota: 2, accountQuota: 3 }, session: { quota: 4 } });
    try {
      const cookie = await signIn(small);
      // The keys exhaust the account ceiling...
      for (const key of ["ghk_demo_full", "ghk_demo_full", "ghk_demo_second"]) expect((await small.get("/v1/me", { key })).status).toBe(200);
      expect((await small.get("/v1/me", { key: "ghk_demo_second" })).json.error.code).toBe("rate_limited");
      // ...and the session still has its own window, named `account`.
      for (let i = 3; i >= 0; i--) {
        const r = await small.get("/v1/me", { key: null, headers: { cookie } });
        expect(r.status).toBe(200);
        expect(r.headers.get("ratelimit")).toMatch(new RegExp(`^"account";r=${i};t=\\d+$`));
        expect(r.headers.get("ratelimit-policy")).toBe('"account";q=4;w=60');
      }
      const refused = await small.get("/v1/me", { key: null, headers: { cookie } });
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe("rate_limited");
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      // A second session of the account shares the account-owned window.
      const second = await signIn(small);
      expect((await small.get("/v1/me", { key: null, headers: { cookie: second } })).status).toBe(429);
      // A new window of the keys does not depend on the session's calls.
      await small.advance(60);
      expect((await small.get("/v1/me", { key: "ghk_demo_full" })).headers.get("ratelimit")).toBe('"default";r=1;t=60');
    } finally {
      await small.close();
    }
  });
});

describe("control interface", () => {
  it("AUTH-3 EVT-7: POST /_sim/sessions starts a session; DELETE ends it and its open streams get terminated (unauthorized)", async () => {
    const started = await sim.control("POST", "sessions", { account_id: "acc_other" });
    expect(started.status).toBe(201);
    const cookie = started.json.cookie as string;
    const stream = await sim.open({ headers: { authorization: "", cookie } });
    expect((await sim.control("GET", "sessions")).json.data.map((s: { session_id: string }) => s.session_id)).toContain(started.json.session_id);
    expect((await sim.control("DELETE", `sessions/${started.json.session_id}`)).json.ended).toBe(true);
    await stream.until((s) => s.ended);
    expect(stream.frames.at(-1)).toMatchObject({ event: "terminated", data: { error: { code: "unauthorized" } } });
    expect((await sim.control("DELETE", `sessions/${started.json.session_id}`)).status).toBe(404);
  });
});
