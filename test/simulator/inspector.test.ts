// The request journal and the inspector's routes, in process: what each row says (request
// id, status, error code, the credential by id, the refusal's reason in words with its
// rung and a link to the operation in the docs), the filters, event streams with their
// frames, the ring's bound, resets, and that no secret the hub hands out or is handed
// ever reaches it. The page itself in Chromium: inspector-browser.test.ts.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { request } from "node:http";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHubClient } from "../../src/client/index.ts";
import { operationRoute } from "../../src/docs/routes.ts";
import { maskAuthorization, maskCookie, maskedHeaders, maskText } from "../../src/simulator/domain/secrets.ts";
import { FLUSH_MS } from "../../src/simulator/handlers/control/inspector/channel.ts";
import { PAGE_POLICY } from "../../src/simulator/handlers/control/inspector/page.ts";
import { INSPECTOR_SCRIPT } from "../../src/simulator/handlers/control/inspector/script.ts";
import { ANSWERS_KEPT } from "../../src/simulator/domain/journal.ts";
import { Hub } from "../../src/simulator/hub.ts";
import { createHubHandlers, HubControl } from "../../src/simulator/msw/index.ts";
import { FULL, startSim, type Sim } from "./support/harness.ts";
import { authorize, callbackOf, pkce, REDIRECT, registered, site, token } from "./support/site.ts";
import { storagePut, ticket, PNG } from "./support/uploads.ts";

const VIDEO = { type: "video", model: "video-model-a", prompt: "a lighthouse at dusk", duration: 5 };

describe("the request journal", () => {
  let sim: Sim;
  beforeAll(async () => {
    sim = await startSim({ demoData: true });
  });
  afterAll(() => sim?.close());
  // A reset empties the journal: each test starts with the reset as its only row.
  beforeEach(() => sim.control("POST", "reset"));

  async function rows(query = ""): Promise<any[]> {
    const r = await sim.control("GET", `requests${query}`);
    expect(r.status, r.text).toBe(200);
    return r.json.data;
  }

  it("lists every request newest first: time, method, path, status, error code, request id, the credential by id, duration", async () => {
    const submitted = await sim.submit(VIDEO, { headers: { "x-request-id": "app-submit-1" } });
    expect(submitted.status).toBe(202);
    const refused = await sim.get("/v1/me", { key: "ghk_demo_revoked" });
    expect(refused.status).toBe(401);
    const [first, second, third, ...rest] = await rows();
    expect(rest).toEqual([]);
    expect(third).toMatchObject({ method: "POST", path: "/_sim/reset", route: "POST /_sim/reset", status: 200, credential: null });
    expect(second).toMatchObject({
      method: "POST",
      path: "/v1/generations",
      route: "submitGeneration",
      operation: "submitGeneration",
      status: 202,
      error_code: null,
      request_id: "app-submit-1",
      credential: { channel: "api_key", id: "key_full", account_id: "acc_demo", label: expect.stringContaining("every scope") },
      reason: null,
    });
    expect(first).toMatchObject({ path: "/v1/me", status: 401, error_code: "api_key_revoked", request_id: refused.json.error.request_id, credential: { id: "key_revoked" } });
    expect(first.seq).toBeGreaterThan(second.seq);
    expect(Date.parse(first.time)).toBeGreaterThanOrEqual(Date.parse(second.time));
    expect(second.duration_ms).toBeGreaterThan(0);
  });

  it("says why a request was refused: the rung of the ladder or guard, the field and rule of the contract's validation, a link to the operation in the docs", async () => {
    await sim.submit({ ...VIDEO, duration: "five" });
    await sim.submit(VIDEO, { key: "ghk_demo_readonly" });
    await sim.get("/v1/me", { key: "ghk_unknown_key" });
    await sim.call("POST", "/_sim/reset", { key: null, raw: "{}", headers: { "content-type": "text/plain" } });
    const [control, unknown, scope, invalid] = await rows("?status=4xx");
    expect(invalid.reason).toMatchObject({ by: "handler", docs: `/docs/reference.html${operationRoute("submitGeneration")}` });
    expect(invalid.reason.details).toContainEqual(expect.objectContaining({ field: "duration", reason: "wrong_type", reason_meaning: "Field has a different type than the schema." }));
    expect(invalid.reason.text).toMatch(/^400 invalid_request, refused by the route's own checks \(submitGeneration\)\. .*duration: wrong_type/);
    expect(scope.reason).toMatchObject({ by: "scope", message: "The credential lacks the scope generations:write." });
    expect(scope.reason.text).toContain('the refusal ladder, rung "scope"');
    expect(unknown).toMatchObject({ error_code: "invalid_api_key", credential: { channel: "api_key", id: null, note: "an unknown API key" }, reason: { by: "credential" } });
    expect(control).toMatchObject({ path: "/_sim/reset", status: 400, reason: { by: "json body", docs: "/docs/guides/simulator.html#security-of-the-control-interface" } });
    expect(control.reason.text).toContain(`the control interface's guard, rung "json body"`);
  });

  it("records what the server refuses before the hub, under the server's check (a Host not allowed)", async () => {
    const url = new URL(sim.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: "/_sim/state", headers: { host: `evil.example:${url.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
    const [row] = await rows("?status=403");
    expect(row).toMatchObject({ path: "/_sim/state", error_code: "origin_mismatch", reason: { by: "host allow-list" } });
    expect(row.reason.text).toContain("--allowed-hosts");
  });

  it("filters by status class, route, credential, text, request id, and what came after a row", async () => {
    await sim.submit(VIDEO, { headers: { "x-request-id": "find-me" } });
    await sim.get("/v1/me", { key: "ghk_demo_other" });
    await sim.get("/v1/models", { key: "ghk_demo_expired" });
    const all = await rows();
    expect(all.map((r) => r.status)).toEqual([401, 200, 202, 200]);
    expect((await rows("?status=2xx")).map((r) => r.status)).toEqual([200, 202, 200]);
    expect((await rows("?status=4xx,202")).map((r) => r.status)).toEqual([401, 202]);
    expect((await rows("?route=submitGeneration")).map((r) => r.request_id)).toEqual(["find-me"]);
    expect((await rows("?route=/v1/m")).map((r) => r.path)).toEqual(["/v1/models", "/v1/me"]);
    expect((await rows("?credential=key_other")).map((r) => r.path)).toEqual(["/v1/me"]);
    expect((await rows("?credential=acc_demo")).map((r) => r.path)).toEqual(["/v1/models", "/v1/generations"]);
    expect((await rows("?credential=none")).map((r) => r.path)).toEqual(["/_sim/reset"]);
    expect((await rows("?q=lighthouse")).map((r) => r.request_id)).toEqual(["find-me"]);
    expect((await rows("?q=api_key_expired")).map((r) => r.path)).toEqual(["/v1/models"]);
    expect((await rows("?request_id=find-me")).length).toBe(1);
    expect((await rows(`?after=${all[1].seq}`)).map((r) => r.seq)).toEqual([all[0].seq]);
    expect((await rows("?limit=2")).length).toBe(2);
    const bad = await sim.control("GET", "requests?status=teapot");
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0]).toMatchObject({ field: "status", reason: "bad_format" });
    expect((await sim.control("GET", "requests?limit=-1")).json.error.details[0].field).toBe("limit");
  });

  it("keeps the inspector's own reads out, and forgets every row on DELETE /_sim/requests", async () => {
    await sim.get("/v1/me");
    for (const path of ["requests", "overview", "ui/", "ui/app.js", "ui/app.css", `requests/${(await rows())[0].seq}`]) expect((await sim.control("GET", path)).status).toBe(200);
    expect((await rows()).map((r) => r.path)).toEqual(["/v1/me", "/_sim/reset"]);
    expect((await sim.control("DELETE", "requests")).status).toBe(200);
    expect((await rows()).map((r) => r.path)).toEqual(["/_sim/requests"]);
  });

  it("follows an event stream: opened, then each frame as it goes out, then its end", async () => {
    const stream = await sim.open();
    const submitted = await sim.submit({ type: "image", model: "image-model-a", prompt: "a fox" });
    await sim.advance(60);
    await stream.until((s) => s.frames.some((f) => (f.data as { status?: string }).status === "DONE"));
    let [row] = await rows("?route=streamGenerationEvents");
    expect(row.stream).toMatchObject({ open: true, end: null });
    expect(row.stream.frames).toBe(stream.frames.length);
    const whole = (await sim.control("GET", `requests/${row.seq}`)).json;
    expect(whole.frames.map((f: { text: string }) => JSON.parse(f.text.split("data: ")[1]!).status)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(whole.frames[0].text).toContain(submitted.json.id);
    stream.drop();
    await expect.poll(async () => (await rows("?route=streamGenerationEvents"))[0].stream.end).toBe("closed");
    [row] = await rows("?route=streamGenerationEvents");
    expect(row.stream.open).toBe(false);
  });

  it("notes the fault that acted: a dropped answer is a row with no answer, a delay counts in the duration", async () => {
    await sim.control("POST", "faults", { faults: [{ kind: "drop", route: "readAccount", count: 1 }, { kind: "latency", route: "listModels", latency_ms: 50, count: 1 }] });
    await expect(fetch(`${sim.url}/v1/me`, { headers: { authorization: `Bearer ${FULL}` } })).rejects.toThrow();
    await sim.get("/v1/models");
    const [slow, dropped] = await rows("?route=/v1/m");
    expect(dropped).toMatchObject({ status: 0, fault: expect.stringMatching(/ drop$/), reason: { by: "fault" } });
    expect(slow).toMatchObject({ status: 200, fault: expect.stringMatching(/ latency$/) });
    expect(slow.duration_ms).toBeGreaterThanOrEqual(50);
  });

  it("gives a curl line that sends the request again, with the key a shell variable", async () => {
    const first = await sim.submit(VIDEO, { idempotencyKey: "curl-again" });
    const [row] = await rows("?route=submitGeneration");
    const { curl } = (await sim.control("GET", `requests/${row.seq}`)).json;
    expect(curl).not.toContain(FULL);
    expect(curl).toContain('"Authorization: Bearer $HUB_KEY"');
    expect(curl).toMatch(/^# HUB_KEY: the secret of key key_full/);
    // Not execFileSync: the simulator answers from this process.
    const { stdout: out } = await promisify(execFile)("bash", ["-c", `${curl} -s -w '\\n%{http_code}'`], { env: { ...process.env, HUB_KEY: FULL }, encoding: "utf8" });
    const [body, status] = [out.slice(0, out.lastIndexOf("\n")), out.slice(out.lastIndexOf("\n") + 1)];
    expect(status).toBe("202");
    // The same Idempotency-Key: the replay of the first submit.
    expect(JSON.parse(body).id).toBe(first.json.id);
  });

  it("never holds a secret: keys, tokens, codes, a PKCE verifier, session cookies and an upload's signature appear only by what they are", async () => {
    const created = await sim.control("POST", "keys", { purpose: "made in the test" });
    await sim.control("GET", "state");
    await sim.control("GET", "keys");
    await sim.control("GET", "scenario");
    await sim.control("POST", `keys/${created.json.secret}/revoke`);
    const session = await sim.control("POST", "sessions", { account_id: "acc_demo" });
    await sim.get("/v1/whoami", { key: null, headers: { cookie: session.json.cookie } });
    const signedIn = await site(sim, "POST", "/site/sign-in", { form: { api_key: FULL, return_to: "/site/" } });
    expect(signedIn.status).toBe(303);
    const clientId = await registered(sim);
    await sim.control("POST", "oauth/auto-consent", { account_id: "acc_demo" });
    const { verifier, challenge } = pkce();
    const code = callbackOf(await authorize(sim, { client_id: clientId, challenge })).code!;
    const tokens = (await token(sim, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId })).json;
    await sim.get("/v1/whoami", { key: tokens.access_token });
    await token(sim, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId });
    await sim.control("GET", "oauth/grants");
    const t = await ticket(sim, "image/png", PNG.length);
    expect((await storagePut(t.json.url, t.json.headers, PNG)).status).toBe(200);

    const state = sim.hub.state;
    const secrets = [
      ...state.keys.keys(),
      ...state.sessions.keys(),
      ...state.oauth.access.keys(),
      ...state.oauth.refresh.keys(),
      code,
      verifier,
      new URL(t.json.url).searchParams.get("signature")!,
    ];
    expect(secrets.length).toBeGreaterThan(state.keys.size + 5);
    // What the routes answer, and what the journal holds inside.
    const listed = await rows("?limit=500");
    expect(listed.length).toBeGreaterThan(15);
    const wholes = await Promise.all(listed.map(async (r) => (await sim.control("GET", `requests/${r.seq}`)).json));
    const held = [...sim.hub.journal.newest()].map((e) => JSON.stringify(e, (_, v) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : v)));
    const text = JSON.stringify(listed) + JSON.stringify(wholes) + held.join("\n");
    for (const secret of secrets) expect(text, `a secret (${secret.slice(0, 4)}…) in the journal`).not.toContain(secret);
    // And it says what each one was.
    expect(text).toContain(`ghk_… (${created.json.id})`);
    expect(text).toContain("ghs_… (session ");
    expect(text).toContain("gho_… (token of grant ");
    expect(text).toContain("signature=…");
    expect(text).toContain("code_verifier=…");
  });

  it("is bounded: a ring of the most recent rows, and off with a size of 0", async () => {
    const small = await startSim({ journalSize: 3 });
    const off = await startSim({ journalSize: 0 });
    try {
      for (let i = 0; i < 5; i++) await small.get("/v1/me", { headers: { "x-request-id": `r${i}` } });
      const kept = (await small.control("GET", "requests")).json;
      expect(kept.data.map((r: { request_id: string }) => r.request_id)).toEqual(["r4", "r3", "r2"]);
      expect(kept.journal).toEqual({ size: 3, recorded: 5 });
      expect((await small.control("GET", `requests/${kept.data[2].seq - 1}`)).status).toBe(404);
      await off.get("/v1/me");
      expect((await off.control("GET", "requests")).json).toEqual({ data: [], journal: { size: 0, recorded: 0 } });
    } finally {
      await small.close();
      await off.close();
    }
    expect(() => new Hub({ journalSize: 1.5 })).toThrow(/journalSize is a whole number/);
  });

  it(`keeps the answers of the ${ANSWERS_KEPT} most recent requests; older rows keep the request, the reason and the curl line`, async () => {
    const hub = new Hub({ clockSpeed: 0, journalSize: ANSWERS_KEPT + 10 });
    const control = new HubControl(hub, "http://127.0.0.1:4010");
    try {
      const ask = (key: string) => hub.handle({ method: "GET", url: "/v1/me", headers: { authorization: `Bearer ${key}` }, baseUrl: "http://127.0.0.1:4010" });
      ask("ghk_demo_revoked");
      for (let i = 0; i < ANSWERS_KEPT; i++) ask(FULL);
      const [oldest] = await control.requests({ status: 401 });
      const aged = await control.exchange(oldest!.seq);
      expect(aged).toMatchObject({ error_code: "api_key_revoked", reason: { by: "credential" }, response: { headers: null, body: null, body_note: expect.stringContaining("no longer kept") } });
      expect(aged.request.headers.authorization).toBe("Bearer ghk_… (key_revoked)");
      expect(aged.curl).toContain("$HUB_KEY");
      const recent = await control.exchange((await control.requests({ limit: 1 }))[0]!.seq);
      expect(recent.response.body).toContain("acc_demo");
    } finally {
      hub.shutdown();
    }
  });

  it("pushes new rows to the page's channel within a second, and refuses the channel to another site", async () => {
    const controller = new AbortController();
    const res = await fetch(`${sim.url}/_sim/ui/events`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    let pending: Promise<ReadableStreamReadResult<string>> | undefined;
    const read = async (until: (text: string) => boolean) => {
      const end = Date.now() + 1000 + FLUSH_MS;
      while (!until(seen) && Date.now() < end) {
        pending ??= reader.read();
        const got = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(r, 50))]);
        if (got === undefined) continue;
        pending = undefined;
        if (got.done) break;
        seen += got.value;
      }
      return seen;
    };
    expect(await read((s) => s.includes("event: state"))).toContain("event: requests"); // the reset, from before it opened
    const started = Date.now();
    await sim.get("/v1/me", { headers: { "x-request-id": "pushed-1" } });
    expect(await read((s) => s.includes("pushed-1"))).toContain('"request_id":"pushed-1"');
    expect(Date.now() - started).toBeLessThan(1000);
    controller.abort();
    const cross = await sim.call("GET", "/_sim/ui/events", { key: null, headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" } });
    expect(cross.status).toBe(403);
    expect(cross.json.error.code).toBe("origin_mismatch");
  });

  it("serves the page and its script and style from the simulator, with a policy that runs only its own script and is never framed", async () => {
    const page = await fetch(`${sim.url}/_sim/ui/`);
    const html = await page.text();
    expect(page.headers.get("content-security-policy")).toBe(PAGE_POLICY);
    expect(PAGE_POLICY).toContain("script-src 'self'");
    expect(PAGE_POLICY).toContain("frame-ancestors 'none'");
    expect(PAGE_POLICY).not.toMatch(/unsafe|https?:/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    // No icon, its style and script, and the scenario export it links to: nothing from elsewhere.
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])).toEqual(["data:,", "/_sim/ui/app.css", "/_sim/ui/app.js", "/_sim/scenario"]);
    expect(html).not.toMatch(/<script>|<style>|style="/);
    const script = await fetch(`${sim.url}/_sim/ui/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toBe(INSPECTOR_SCRIPT);
    expect(() => new Function(INSPECTOR_SCRIPT)).not.toThrow();
    expect((await fetch(`${sim.url}/_sim/ui/app.css`)).headers.get("content-type")).toBe("text/css; charset=utf-8");
  });
});

describe("masks", () => {
  const hub = new Hub();
  const state = hub.state;
  afterAll(() => hub.shutdown());

  it("name a credential by what it is, and hide the fields and headers that carry a client's secrets", () => {
    expect(maskText('{"secret":"ghk_demo_full","id":"key_full"}', state)).toBe('{"secret":"ghk_… (key_full)","id":"key_full"}');
    expect(maskText("ghk_never_issued", state)).toBe("ghk_… (unknown key)");
    expect(maskText('{"client_secret":"s3cr3t","password":"p","code":"invalid_request"}', state)).toBe('{"client_secret":"…","password":"…","code":"invalid_request"}');
    expect(maskText("grant_type=authorization_code&code=abc&code_verifier=xyz&client_assertion=eyJ.x.y", state)).toBe("grant_type=authorization_code&code=…&code_verifier=…&client_assertion=…");
    expect(maskText("/storage/upl_1?signature=abc.def&x=1", state)).toBe("/storage/upl_1?signature=…&x=1");
    expect(maskText('{"prompt":"a lighthouse"}', state)).toBe('{"prompt":"a lighthouse"}');
    expect(maskAuthorization("Bearer ghk_demo_full", state)).toBe("Bearer ghk_… (key_full)");
    expect(maskAuthorization("Basic dXNlcjpwYXNz", state)).toBe("Basic …");
    expect(maskCookie("theme=dark; gh_session=ghs_unknown", state)).toBe("theme=…; gh_session=ghs_… (unknown session)");
    expect(maskCookie("gh_session=ghs_x; Path=/; HttpOnly; SameSite=Lax", state)).toBe("gh_session=ghs_… (unknown session); Path=/; HttpOnly; SameSite=Lax");
    // /v1 headers are copied as they are, but for the credentials and a Referer that may carry an OAuth code.
    expect(maskedHeaders({ authorization: "Bearer gho_x", referer: "http://localhost:5173/callback?code=ghc_abc&state=s", "x-other": ["a", "b"] }, state, false)).toEqual({
      authorization: "Bearer gho_… (unknown token)",
      referer: "http://localhost:5173/callback?code=ghc_… (unknown code)&state=s",
      "x-other": "a, b",
    });
  });
});

describe("the journal in tests", () => {
  it("Mock Service Worker: control.requests() tells what the app sent, filtered, and control.exchange() the whole of it", async () => {
    const { handlers, control, hub } = createHubHandlers();
    const server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: "error" });
    try {
      const client = createHubClient({ baseUrl: "https://hub.example", apiKey: FULL });
      await client.submit({ type: "image", model: "image-model-a", prompt: "a fox" });
      await createHubClient({ baseUrl: "https://hub.example", apiKey: "ghk_demo_free" }).submit({ type: "video", model: "video-model-a", prompt: "x", duration: 5 }).catch(() => undefined);
      const [refused] = await control.requests({ status: "4xx" });
      expect(refused).toMatchObject({ route: "submitGeneration", status: 402, error_code: "payment_required", credential: { id: "key_free" } });
      const [submit] = await control.requests({ route: "submitGeneration", status: 202 });
      expect(submit.credential?.id).toBe("key_full");
      const whole = await control.exchange(submit.seq);
      expect(JSON.parse(whole.request.body!)).toMatchObject({ prompt: "a fox" });
      expect(whole.request.headers.authorization).toBe("Bearer ghk_… (key_full)");
      await control.clearRequests();
      expect(await control.requests()).toMatchObject([{ path: "/_sim/requests", method: "DELETE" }]);
    } finally {
      server.close();
      hub.shutdown();
    }
  });

  it("startSimulator: sim.requests() and sim.exchange() read the same journal", async () => {
    const sim = await startSim();
    try {
      await sim.get("/v1/me", { headers: { "x-request-id": "from-the-app" } });
      const [row] = await sim.running.requests({ requestId: "from-the-app" });
      expect(row).toMatchObject({ path: "/v1/me", status: 200 });
      expect((await sim.running.exchange(row!.seq)).response.body).toContain("acc_demo");
    } finally {
      await sim.close();
    }
  });
});
