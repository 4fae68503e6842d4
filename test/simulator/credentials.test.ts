// Credentials and the refusal ladder in the seed's order, scopes, and objects of
// another account answering exactly like missing ones.
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { LADDER } from "../../src/simulator/pipeline/ladder.ts";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ demoData: true });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

describe("the refusal ladder", () => {
  const cases: [string | null, number, string][] = [
    [null, 401, "unauthorized"],
    ["not a key", 401, "invalid_api_key"],
    ["ghk_demo_nobody", 401, "invalid_api_key"],
    ["gho_unknown_token", 401, "invalid_token"],
    ["ghk_demo_expired", 401, "api_key_expired"],
    ["ghk_demo_revoked", 401, "api_key_revoked"],
    ["ghk_demo_noapi", 403, "api_access_not_granted"],
    ["ghk_demo_suspended", 403, "account_suspended"],
    ["ghk_demo_terms", 403, "legal_consent_required"],
  ];
  for (const [key, status, code] of cases) {
    it(`AUTH-7: ${key ?? "no credential"} answers ${status} ${code}`, async () => {
      const r = await sim.get("/v1/generations", { key });
      expect(r.status).toBe(status);
      expect(r.json.error.code).toBe(code);
    });
  }

  it("AUTH-8: every 401 carries WWW-Authenticate with resource_metadata; an unusable token also error=\"invalid_token\"", async () => {
    const none = await sim.get("/v1/me", { key: null });
    expect(none.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${sim.url}/.well-known/oauth-protected-resource/v1"`);
    for (const key of ["bad", "ghk_demo_expired", "ghk_demo_revoked", "gho_x"]) {
      const r = await sim.get("/v1/me", { key });
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"$/);
    }
  });

  it("AUTH-7: the rungs apply in the seed's order (expired before revoked, access before suspension before terms)", async () => {
    await sim.control("PATCH", "keys/ghk_demo_expired", { revoked: true });
    expect((await sim.get("/v1/me", { key: "ghk_demo_expired" })).json.error.code).toBe("api_key_expired");
    await sim.control("PATCH", "accounts/acc_terms", { suspended: true, api_access: false });
    expect((await sim.get("/v1/me", { key: "ghk_demo_terms" })).json.error.code).toBe("api_access_not_granted");
    await sim.control("PATCH", "accounts/acc_terms", { api_access: true });
    expect((await sim.get("/v1/me", { key: "ghk_demo_terms" })).json.error.code).toBe("account_suspended");
    // Scope is the last rung: an account refusal wins over a missing scope.
    await sim.control("PATCH", "keys/ghk_demo_terms", { scopes: [] });
    expect((await sim.get("/v1/models", { key: "ghk_demo_terms" })).json.error.code).toBe("account_suspended");
  });

  it("AUTH-7 LIM-2: the ladder is written once, as one ordered list of named rungs", () => {
    expect(LADDER.map((rung) => rung.name)).toEqual(["api switch", "endpoint", "credential", "origin", "limiter", "account", "scope", "repeated parameters"]);
  });

  it("AUTH-7 LIM-2: each rung answers before every rung after it: a request wrong on all of them, put right one rung at a time", async () => {
    // One key that fails every rung after the credential's: revoked, its account suspended
    // and its request window spent, holding no scope; the query repeats `limit`.
    const scenario = {
      scenario_version: 1,
      name: "wrong-everywhere",
      description: "A key wrong on every rung of the ladder.",
      accounts: [{ id: "acc_x", suspended: true }],
      keys: [{ secret: "ghk_wrong_everywhere", id: "key_x", account_id: "acc_x", scopes: [], revoked: true }],
      rate_limits: { spent: [{ window: "key", key_id: "key_x", used: 300 }] },
    };
    expect((await sim.control("POST", "scenario", scenario)).status).toBe(200);
    onTestFinished(async () => void (await sim.control("POST", "scenario", { name: "demo" })));
    const ask = () => sim.get("/v1/generations?limit=1&limit=2", { key: "ghk_wrong_everywhere" });
    const answers: string[] = [];
    const note = async () => {
      const r = await ask();
      answers.push(`${r.status} ${r.json?.error?.code ?? "ok"}${r.headers.get("ratelimit") ? " +RateLimit" : ""}`);
    };
    await sim.control("POST", "api", { enabled: false });
    await note();
    expect((await sim.get("/v1/generationz", { key: "ghk_wrong_everywhere" })).json.error.code).toBe("api_disabled");
    await sim.control("POST", "api", { enabled: true });
    // The endpoint rung: an unknown path answers 404 whatever the key.
    expect((await sim.get("/v1/generationz", { key: "ghk_wrong_everywhere" })).json.error.code).toBe("not_found");
    await note();
    await sim.control("PATCH", "keys/ghk_wrong_everywhere", { revoked: false });
    await note();
    await sim.advance(61);
    await note();
    await sim.control("PATCH", "accounts/acc_x", { suspended: false });
    await note();
    await sim.control("PATCH", "keys/ghk_wrong_everywhere", { scopes: ["generations:read"] });
    await note();
    expect(answers).toEqual([
      "503 api_disabled",
      "401 api_key_revoked",
      "429 rate_limited +RateLimit",
      "403 account_suspended +RateLimit",
      "403 insufficient_scope +RateLimit",
      "400 invalid_request +RateLimit",
    ]);
    const put = await sim.get("/v1/generations?limit=1", { key: "ghk_wrong_everywhere" });
    expect(put.status).toBe(200);

    // The origin rung (session cookie, a change): before the limiter and the account.
    const session = await sim.control("POST", "sessions", { account_id: "acc_x" });
    await sim.control("PATCH", "accounts/acc_x", { suspended: true });
    const cancel = (origin: string) => sim.call("POST", "/v1/subscription/cancel", { key: null, body: {}, headers: { cookie: session.json.cookie, origin } });
    const foreign = await cancel("https://elsewhere.example");
    expect([foreign.status, foreign.json.error.code, foreign.headers.get("ratelimit")]).toEqual([403, "origin_mismatch", null]);
    const own = await cancel(new URL(sim.url).origin);
    expect([own.status, own.json.error.code, Boolean(own.headers.get("ratelimit"))]).toEqual([403, "account_suspended", true]);
  });

  it("AUTH-7: API disabled answers 503 api_disabled on any /v1 path before the key is read, without RateLimit headers", async () => {
    await sim.control("POST", "api", { enabled: false });
    for (const [path, key] of [["/v1/me", "ghk_demo_full"], ["/v1/generations", null], ["/v1/nowhere", "bad"]] as const) {
      const r = await sim.get(path, { key });
      expect(r.status).toBe(503);
      expect(r.json.error.code).toBe("api_disabled");
      expect(r.headers.get("ratelimit")).toBeNull();
      expect(r.headers.get("ratelimit-policy")).toBeNull();
    }
  });

  it("AUTH-6: a missing scope answers 403 insufficient_scope", async () => {
    const r = await sim.submit({ type: "image", model: "image-model-a" }, { key: "ghk_demo_readonly" });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("insufficient_scope");
    expect((await sim.get("/v1/generations", { key: "ghk_demo_readonly" })).status).toBe(200);
  });

  it("W-11: API keys get insufficient_scope on the session-only subscription routes, even with billing:read", async () => {
    for (const path of ["/v1/subscription/resume", "/v1/subscription/cancel", "/v1/subscription/card-change", "/v1/subscription/card-change/complete"]) {
      const r = await sim.post(path, {});
      expect(r.status).toBe(403);
      expect(r.json.error.code).toBe("insufficient_scope");
    }
  });

  it("AUTH-1: a key created, then revoked through the control interface stops working", async () => {
    const created = await sim.control("POST", "keys", { account_id: "acc_demo", scopes: ["me:read"] });
    expect(created.status).toBe(201);
    expect((await sim.get("/v1/me", { key: created.json.secret })).status).toBe(200);
    await sim.control("POST", `keys/${created.json.secret}/revoke`);
    expect((await sim.get("/v1/me", { key: created.json.secret })).json.error.code).toBe("api_key_revoked");
  });

  it("AUTH-1: a key expires on the simulator's clock", async () => {
    const created = await sim.control("POST", "keys", { expires_in_seconds: 30 });
    expect((await sim.get("/v1/me", { key: created.json.secret })).status).toBe(200);
    await sim.advance(31);
    expect((await sim.get("/v1/me", { key: created.json.secret })).json.error.code).toBe("api_key_expired");
  });

  it("ACC-2: whoami says what the credential resolved to", async () => {
    const r = await sim.get("/v1/whoami", { key: "ghk_demo_readonly" });
    expect(r.json).toMatchObject({ user_id: "acc_demo", role: "user", channel: "api_key", key_id: "key_readonly" });
    expect(r.json.scopes).not.toContain("generations:write");
  });
});

describe("another account's objects", () => {
  it("W-8: another account's generation answers 404 exactly like a missing one, on every route", async () => {
    const mine = await sim.submit({ type: "image", model: "image-model-a", prompt: "mine" });
    await sim.advance(60);
    const id = mine.json.id as string;
    const done = await sim.get(`/v1/generations/${id}`);
    const output = new URL(done.json.output_urls[0]).pathname;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/v1/generations/${id}`],
      ["PATCH", `/v1/generations/${id}`, { title: "x" }],
      ["GET", output],
      ["POST", `/v1/generations/${id}/report`, { text: "bad" }],
    ];
    for (const [method, path, body] of attempts) {
      const foreign = await sim.call(method, path, { key: "ghk_demo_other", body });
      const missing = await sim.call(method, path.replace(id, "gen_00000000000000000000000000"), { key: "ghk_demo_other", body });
      expect(foreign.status, `${method} ${path}`).toBe(404);
      expect(foreign.json.error.code).toBe("not_found");
      expect({ ...foreign.json.error, request_id: "" }).toEqual({ ...missing.json.error, request_id: "" });
    }
    const batch = await sim.post("/v1/generations/status", { ids: [id] }, { key: "ghk_demo_other" });
    expect(batch.json.data).toEqual([]);
    const list = await sim.get("/v1/generations", { key: "ghk_demo_other" });
    expect(list.json.data.map((g: { id: string }) => g.id)).not.toContain(id);
  });

  it("GEN-5: the result file is served to any credential of the owning account, and to no other", async () => {
    const list = await sim.get("/v1/generations");
    const done = list.json.data.find((g: { status: string }) => g.status === "DONE");
    const path = new URL(done.output_urls[0]).pathname;
    expect((await sim.get(path, { key: "ghk_demo_second" })).status).toBe(200);
    expect((await sim.get(path, { key: "ghk_demo_other" })).status).toBe(404);
    expect((await sim.get(path, { key: null })).status).toBe(401);
  });
});
