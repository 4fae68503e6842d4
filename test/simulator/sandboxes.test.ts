// Sandboxes: hubs of their own inside one simulator server, so the tests of a parallel
// suite sharing one `generation-hub mock` never see each other. In process (one
// startSimulator on a free port, plain fetch): a sandbox's state, clock, faults, journal
// and event streams are its own; a request reaches it by a key minted in it, its base
// path, the Hub-Sandbox header or the hub_sandbox cookie, in that order; a key of one
// sandbox with another's hint, a sandbox that never was or that ended, and the cap reached
// are refused in the API's envelope, never answered by another hub; reset keeps its keys;
// requests without a credential (OAuth with discovery in its RFC 8414 form, storage, the
// site's sign-in, docs, the inspector) reach it by its base path; CORS, Host and the
// control interface's guard apply as they do to the default hub. Every /v1 answer is held
// to the contract (its path read without the base path).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { checkAnswer, matchOperation, schemaValidator } from "../../src/contract/index.ts";
import { authorizationUrl, discover, exchangeCode, register } from "../../src/client/oauth/index.ts";
import { createHubClient } from "../../src/client/index.ts";
import { createServer } from "../../src/simulator/http/server.ts";
import { Hub, HubControl, ControlError, Sandboxes, startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { createHubHandlers } from "../../src/simulator/msw/index.ts";
import { sandboxOfKey } from "../../src/simulator/state/sandbox-keys.ts";

const envelopeValid = schemaValidator("ErrorEnvelope");
const IMAGE = { type: "image", model: "image-model-a", prompt: "a fox in a sandbox" };

let sim: RunningSimulator;
let root: HubControl;
let docsDir: string;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A request to the simulator; a /v1 answer is held to the contract (the path without a sandbox's base path), an error to the envelope. */
async function call(method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: unknown; base?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  if (method === "POST" && path.endsWith("/generations")) headers["idempotency-key"] ??= crypto.randomUUID();
  const res = await fetch(`${options.base ?? sim.url}${path}`, { method, headers, body });
  const text = await res.text();
  const bare = new URL(`${options.base ?? sim.url}${path}`).pathname.replace(/^\/sandboxes\/[^/]+/, "");
  const operation = matchOperation(method, bare);
  if (operation && res.status < 400) expect(checkAnswer(operation.operation, { status: res.status, headers: res.headers, body: text }), `${method} ${path}`).toEqual([]);
  if (res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json")) expect(envelopeValid(JSON.parse(text)), text).toBe(true);
  return { status: res.status, headers: res.headers, text, json: text && (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined };
}

const generationsOf = async (key: string, headers: Record<string, string> = {}) => (await call("GET", "/v1/generations?limit=100", { key, headers })).json.data.map((g: { id: string }) => g.id) as string[];

beforeAll(async () => {
  // A docs folder of its own: the reference site is built by `npm run docs`, not here.
  docsDir = mkdtempSync(join(tmpdir(), "sandbox-docs-"));
  writeFileSync(join(docsDir, "index.html"), "<!doctype html><title>docs</title>");
  sim = await startSimulator({ port: 0, clockSpeed: 0, maxSandboxes: 40, docsDir });
  root = HubControl.overHttp(sim.url);
});

afterAll(async () => {
  await sim?.close();
  if (docsDir) rmSync(docsDir, { recursive: true, force: true });
});

describe("a sandbox is a hub of its own", () => {
  it("POST /_sim/sandboxes answers its id, base address, its own key (every scope) and its copy of each demo key by role; it is listed, read and deleted", async () => {
    const made = await call("POST", "/_sim/sandboxes", { body: {} });
    expect(made.status).toBe(201);
    const s = made.json;
    expect(s.id).toMatch(/^sbx_[0-9a-z]{12}$/);
    expect(s.base_url).toBe(`${sim.url}/sandboxes/${s.id}`);
    expect(s.scenario).toBe("demo");
    expect(s.api_key).toBe(`ghk_${s.id}`);
    expect(Object.keys(s.keys)).toEqual(["full", "second", "readonly", "free", "broke", "capped", "other", "early", "expired", "revoked", "noapi", "suspended", "terms"]);
    expect(s.keys.full).toBe(`ghk_${s.id}_full`);
    const who = await call("GET", "/v1/whoami", { key: s.api_key });
    expect(who.json).toMatchObject({ user_id: "acc_demo", key_id: "key_sandbox" });
    expect(who.json.scopes).toHaveLength(12);
    // Each copy behaves as the demo key of its role.
    expect((await call("GET", "/v1/me", { key: s.keys.revoked })).json.error.code).toBe("api_key_revoked");
    expect((await call("POST", "/v1/generations", { key: s.keys.readonly, body: IMAGE })).json.error.code).toBe("insufficient_scope");
    expect((await call("GET", "/v1/whoami", { key: s.keys.other })).json.user_id).toBe("acc_other");
    expect((await call("GET", "/_sim/sandboxes")).json.data.map((x: { id: string }) => x.id)).toContain(s.id);
    expect((await call("GET", `/_sim/sandboxes/${s.id}`)).json).toMatchObject({ id: s.id, api_key: s.api_key, open_streams: 0 });
    expect((await call("DELETE", `/_sim/sandboxes/${s.id}`)).json).toMatchObject({ id: s.id, deleted: true });
    expect((await call("GET", "/_sim/sandboxes")).json.data.map((x: { id: string }) => x.id)).not.toContain(s.id);
    expect((await call("GET", `/_sim/sandboxes/${s.id}`)).json.error.code).toBe("gone");
  });

  it("state, clock, faults, journal and reset are the sandbox's own: what one test does in its sandbox, no other sandbox and not the default hub sees", async () => {
    const a = await root.createSandbox();
    const b = await root.createSandbox();
    const mark = crypto.randomUUID();
    const submitted = await call("POST", "/v1/generations", { key: "ghk_demo_full", headers: { "hub-sandbox": a.id }, body: { ...IMAGE, prompt: mark } });
    expect(submitted.status).toBe(202);
    const id = submitted.json.id as string;
    expect(await generationsOf(a.keys.full!)).toContain(id);
    expect(await generationsOf(b.keys.full!)).not.toContain(id);
    expect(await generationsOf("ghk_demo_full")).not.toContain(id);
    // The clock: moved in one, the others stand.
    const [before, beforeMain] = [(await b.control.clock()).now_ms, (await root.clock()).now_ms];
    await a.control.advance(3600);
    expect((await a.control.generation(id)).status).toBe("DONE");
    expect((await b.control.clock()).now_ms).toBe(before);
    expect((await root.clock()).now_ms).toBe(beforeMain);
    // A one-shot fault: only the sandbox's own requests meet it.
    await a.control.addFault({ kind: "service_unavailable", route: "readAccount", count: 1 });
    expect((await call("GET", "/v1/me", { key: "ghk_demo_full" })).status).toBe(200);
    expect((await call("GET", "/v1/me", { key: b.api_key })).status).toBe(200);
    expect((await call("GET", "/v1/me", { key: a.api_key })).json.error.code).toBe("service_unavailable");
    expect((await call("GET", "/v1/me", { key: a.api_key })).status).toBe(200);
    // The journal: each sandbox's requests in its own, none in another's.
    const rowsOf = async (c: HubControl) => (await c.requests({ limit: 1000 })).map((r) => r.request_id);
    const aRows = await a.control.requests({ route: "submitGeneration", text: mark });
    expect(aRows.map((r) => r.route)).toEqual(["submitGeneration"]);
    expect(await b.control.requests({ text: mark })).toEqual([]);
    expect(await root.requests({ text: mark })).toEqual([]);
    expect((await rowsOf(b.control)).filter((r) => aRows.some((x) => x.request_id === r))).toEqual([]);
    // Reset: the sandbox back to its scenario, the others as they were.
    await a.control.reset();
    expect(await generationsOf(a.api_key)).not.toContain(id);
    expect((await a.control.faults())).toEqual([]);
    expect((await a.control.requests()).map((r) => r.route).at(-1)).toBe("POST /_sim/reset");
    expect((await b.control.requests()).length).toBeGreaterThan(0);
  });

  it("an event stream gets the sandbox's events only, and ends when the sandbox is deleted", async () => {
    const s = await root.createSandbox();
    const stream = await fetch(`${sim.url}/v1/events`, { headers: { authorization: `Bearer ${s.api_key}` } });
    expect(stream.status).toBe(200);
    const text = (async () => {
      let all = "";
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) all += read.value;
      return all;
    })();
    const other = await call("POST", "/v1/generations", { key: "ghk_demo_full", body: { ...IMAGE, prompt: "in the default hub" } });
    const own = await call("POST", "/v1/generations", { key: s.keys.full, body: { ...IMAGE, prompt: "in the sandbox" } });
    await root.deleteSandbox(s.id);
    const frames = await text;
    expect(frames).toContain(`"id":"${own.json.id}"`);
    expect(frames).not.toContain(other.json.id);
  });

  it("a reset keeps the sandbox's keys valid, and so does loading another scenario; a key made in it through /_sim/keys reaches it by itself", async () => {
    const s = await root.createSandbox();
    await s.control.reset();
    expect((await call("GET", "/v1/whoami", { key: s.api_key })).status).toBe(200);
    expect((await call("GET", "/v1/whoami", { key: s.keys.full })).json.key_id).toBe("sbx_full");
    await s.control.loadScenario("out-of-credits");
    expect((await call("GET", "/v1/whoami", { key: s.api_key })).status).toBe(200);
    expect((await call("POST", "/v1/generations", { key: s.keys.full, body: IMAGE })).json.error.code).toBe("insufficient_credits");
    // The default hub still has its credits.
    expect((await call("POST", "/v1/generations", { key: "ghk_demo_full", body: IMAGE })).status).toBe(202);
    const made = await s.control.createKey({ scopes: ["me:read"] });
    expect(made.secret.startsWith(`ghk_${s.id}_sim_`)).toBe(true);
    expect(sandboxOfKey(made.secret)).toBe(s.id);
    expect((await call("GET", "/v1/me", { key: made.secret })).status).toBe(200);
    // A key made in the default hub stays the default hub's (and is unknown in a sandbox).
    const mainKey = await root.createKey({ scopes: ["me:read"] });
    expect(mainKey.secret.startsWith("ghk_sim_")).toBe(true);
    expect((await call("GET", "/v1/me", { key: mainKey.secret })).status).toBe(200);
    expect((await call("GET", "/v1/me", { key: mainKey.secret, headers: { "hub-sandbox": s.id } })).json.error.code).toBe("invalid_api_key");
    // Its export leaves the sandbox's own keys out: loaded elsewhere, it gets that hub's.
    const file = await s.control.exportScenario();
    expect(file.keys.map((k) => k.secret).filter((x) => x.startsWith("ghk_sbx_"))).toEqual([]);
    const other = await root.createSandbox({ scenario: file });
    expect((await call("GET", "/v1/whoami", { key: other.api_key })).status).toBe(200);
  });
});

describe("which hub answers: a sandbox's key, then its base path, the Hub-Sandbox header, the hub_sandbox cookie", () => {
  let a: Awaited<ReturnType<HubControl["createSandbox"]>>;
  let b: Awaited<ReturnType<HubControl["createSandbox"]>>;
  const whereIs = async (mark: string) => ({
    a: (await a.control.requests({ text: mark })).length,
    b: (await b.control.requests({ text: mark })).length,
    main: (await root.requests({ text: mark })).length,
  });

  beforeAll(async () => {
    a = await root.createSandbox();
    b = await root.createSandbox();
  });

  it("a demo key without a hint reaches the default hub; with a base path, a header or a cookie, the sandbox named", async () => {
    const routes: [string, string, Record<string, string>, "a" | "b" | "main"][] = [
      ["none", "/v1/me", {}, "main"],
      ["base path", `/sandboxes/${a.id}/v1/me`, {}, "a"],
      ["header", "/v1/me", { "hub-sandbox": a.id }, "a"],
      ["cookie", "/v1/me", { cookie: `theme=dark; hub_sandbox=${a.id}` }, "a"],
      ["base path over header", `/sandboxes/${a.id}/v1/me`, { "hub-sandbox": b.id }, "a"],
      ["base path over cookie", `/sandboxes/${a.id}/v1/me`, { cookie: `hub_sandbox=${b.id}` }, "a"],
      ["header over cookie", "/v1/me", { "hub-sandbox": a.id, cookie: `hub_sandbox=${b.id}` }, "a"],
    ];
    expect(routes).not.toHaveLength(0);
    for (const [label, path, headers, expected] of routes) {
      const mark = `mark-${crypto.randomUUID()}`;
      const answer = await call("GET", path, { key: "ghk_demo_full", headers: { ...headers, "x-request-id": mark } });
      expect(answer.status, label).toBe(200);
      expect(await whereIs(mark), label).toEqual({ a: 0, b: 0, main: 0, [expected]: 1 });
    }
  });

  it("a sandbox's key reaches its sandbox by itself, and with a hint of its own sandbox", async () => {
    expect((await call("GET", "/v1/whoami", { key: a.keys.full })).json.key_id).toBe("sbx_full");
    expect((await call("GET", `/sandboxes/${a.id}/v1/whoami`, { key: a.keys.full })).status).toBe(200);
    expect((await call("GET", "/v1/whoami", { key: a.keys.full, headers: { cookie: `hub_sandbox=${a.id}` } })).status).toBe(200);
  });

  it("a sandbox's key with another sandbox's hint is refused (401 invalid_api_key saying so), answered by neither, and recorded in the journal of the sandbox named", async () => {
    const cases: [string, Record<string, string>][] = [
      [`/sandboxes/${b.id}/v1/generations`, {}],
      ["/v1/generations", { "hub-sandbox": b.id }],
      ["/v1/generations", { cookie: `hub_sandbox=${b.id}` }],
    ];
    expect(cases).not.toHaveLength(0);
    for (const [path, headers] of cases) {
      const before = [(await generationsOf(a.api_key)).length, (await generationsOf(b.api_key)).length];
      const mark = `cross-${crypto.randomUUID()}`;
      const refused = await call("POST", path, { key: a.keys.full, headers: { ...headers, "x-request-id": mark }, body: IMAGE });
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe("invalid_api_key");
      expect(refused.json.error.message).toContain(`belongs to sandbox ${a.id}, but the request names sandbox ${b.id}`);
      expect(refused.json.error.request_id).toBe(mark);
      expect([(await generationsOf(a.api_key)).length, (await generationsOf(b.api_key)).length]).toEqual(before);
      const [row] = await b.control.requests({ requestId: mark });
      expect(row).toMatchObject({ status: 401, error_code: "invalid_api_key", reason: { by: "sandbox" } });
      expect(await a.control.requests({ requestId: mark })).toEqual([]);
    }
  });

  it("a sandbox that never was answers 404 not_found, one that ended 410 gone, a key of one that ended 401: in the envelope, never the default hub's data", async () => {
    const gone = await root.createSandbox();
    await root.deleteSandbox(gone.id);
    const cases: [string, Record<string, string>, string | undefined, number, string, string][] = [
      ["/sandboxes/sbx_000000000000/v1/generations", {}, "ghk_demo_full", 404, "not_found", "No sandbox sbx_000000000000 (named by its base path"],
      ["/v1/generations", { "hub-sandbox": "sbx_000000000000" }, "ghk_demo_full", 404, "not_found", "(named by the Hub-Sandbox header)"],
      ["/v1/generations", { cookie: "hub_sandbox=nonsense" }, "ghk_demo_full", 404, "not_found", '"nonsense" (named by the hub_sandbox cookie) is not a sandbox id'],
      [`/sandboxes/${gone.id}/v1/generations`, {}, "ghk_demo_full", 410, "gone", `Sandbox ${gone.id} (named by its base path /sandboxes/{id}) was deleted`],
      ["/v1/generations", { cookie: `hub_sandbox=${gone.id}` }, "ghk_demo_full", 410, "gone", "was deleted"],
      [`/sandboxes/${gone.id}/_sim/state`, {}, undefined, 410, "gone", "was deleted"],
      [`/sandboxes/${gone.id}/docs/`, {}, undefined, 410, "gone", "was deleted"],
      ["/v1/generations", {}, gone.keys.full, 401, "invalid_api_key", `belongs to sandbox ${gone.id}, which was deleted`],
    ];
    expect(cases).not.toHaveLength(0);
    for (const [path, headers, key, status, code, says] of cases) {
      const answer = await call("GET", path, { key, headers });
      expect([answer.status, answer.json.error.code], path).toEqual([status, code]);
      expect(answer.json.error.message).toContain(says);
      expect(Object.keys(answer.json)).toEqual(["error"]);
    }
    // Refused before any sandbox: the default hub's journal names the step.
    const [row] = await root.requests({ route: "/sandboxes/sbx_000000000000" });
    expect(row?.reason).toMatchObject({ by: "sandbox" });
    expect(row?.reason?.text).toContain("sandbox routing");
  });
});

describe("requests without a credential reach the sandbox by its base path", () => {
  it("OAuth: discovery in its RFC 8414 and RFC 9728 forms names the sandbox's issuer and resource, and the typed client's whole flow runs in the sandbox", async () => {
    const s = await root.createSandbox();
    const base = s.base_url;
    const origin = new URL(base).origin;
    const as = await call("GET", `/.well-known/oauth-authorization-server/sandboxes/${s.id}`);
    expect(as.json).toMatchObject({ issuer: base, token_endpoint: `${base}/oauth/token`, authorization_endpoint: `${base}/oauth/authorize` });
    expect((await call("GET", `/sandboxes/${s.id}/.well-known/oauth-authorization-server`)).json.issuer).toBe(base);
    expect((await call("GET", `/.well-known/oauth-protected-resource/sandboxes/${s.id}/v1`)).json).toMatchObject({ resource: `${base}/v1`, authorization_servers: [base] });
    expect((await fetch(`${origin}/.well-known/oauth-authorization-server`).then((r) => r.json())).issuer).toBe(origin);
    // oauth4webapi (inside the typed client) finds the metadata by the RFC 8414 path form itself.
    await s.control.setAutoConsent("acc_demo");
    const server = await discover(base, { allowHttp: true });
    expect(server.resourceId).toBe(`${base}/v1`);
    const client = await register(server, { client_name: "sandboxed app", redirect_uris: ["http://127.0.0.1:5173/callback"], token_endpoint_auth_method: "none" });
    const request = await authorizationUrl(server, client, { redirectUri: "http://127.0.0.1:5173/callback", scope: ["me:read"] });
    const back = await fetch(request.url, { redirect: "manual" });
    expect(back.status).toBe(303);
    const tokens = await exchangeCode(server, client, request, back.headers.get("location")!);
    const me = await call("GET", `/sandboxes/${s.id}/v1/whoami`, { key: tokens.access_token });
    expect(me.json).toMatchObject({ channel: "oauth", user_id: "acc_demo" });
    // The grant is the sandbox's: the default hub knows no such token or client.
    expect((await s.control.request<{ data: unknown[] }>("GET", "oauth/grants")).data).toHaveLength(1);
    expect((await root.request<{ data: unknown[] }>("GET", "oauth/grants")).data).toHaveLength(0);
    expect((await call("GET", "/v1/whoami", { key: tokens.access_token })).json.error.code).toBe("invalid_token");
  });

  it("storage: an upload ticket's address carries the base path, so the PUT without credentials lands in the sandbox's library", async () => {
    const s = await root.createSandbox();
    const png = new Uint8Array(readFileSync(at("src/simulator/assets/image.png")));
    const ticket = await call("POST", `/sandboxes/${s.id}/v1/uploads`, { key: "ghk_demo_full", body: { kind: "image", content_type: "image/png", content_length: png.length } });
    expect(ticket.json.url.startsWith(`${s.base_url}/storage/`)).toBe(true);
    expect(ticket.json.proxy_path.startsWith("/v1/uploads/content")).toBe(true);
    const put = await fetch(ticket.json.url, { method: "PUT", headers: ticket.json.headers, body: png });
    expect(put.status).toBe(200);
    const listed = (key: string, headers: Record<string, string> = {}) => call("GET", "/v1/library/assets", { key, headers }).then((r) => r.json.data.map((x: { reference: string }) => x.reference));
    expect(await listed(s.api_key)).toContain(ticket.json.reference);
    expect(await listed("ghk_demo_full")).not.toContain(ticket.json.reference);
    // Through the typed client given the base address, the proxy path stays on it too.
    const client = createHubClient({ baseUrl: s.base_url, apiKey: "ghk_demo_full" });
    const submitted = await client.submit({ type: "image", model: "image-model-a", prompt: "through the base address" });
    expect(submitted.status).toBe(202);
    expect(submitted.response.headers.get("location")).toBe(`/sandboxes/${s.id}/v1/generations/${submitted.data.id}`);
    expect(submitted.data.output_urls).toEqual([]);
  });

  it("the site's sign-in: its form, redirect and cookie stay on the sandbox's base path, and the session is the sandbox's", async () => {
    const s = await root.createSandbox();
    const page = await fetch(`${s.base_url}/site/sign-in`);
    expect(await page.text()).toContain(`action="/sandboxes/${s.id}/site/sign-in"`);
    const signed = await fetch(`${s.base_url}/site/sign-in`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "account_id=acc_demo", redirect: "manual" });
    expect(signed.status).toBe(303);
    expect(signed.headers.get("location")).toBe(`/sandboxes/${s.id}/site/`);
    const cookie = signed.headers.get("set-cookie")!;
    expect(cookie).toContain(`Path=/sandboxes/${s.id}/`);
    const jar = cookie.split(";")[0]!;
    expect((await call("GET", `/sandboxes/${s.id}/v1/whoami`, { headers: { cookie: jar } })).json.channel).toBe("session");
    expect((await call("GET", "/v1/whoami", { headers: { cookie: jar } })).json.error.code).toBe("unauthorized");
    expect((await s.control.request<{ data: unknown[] }>("GET", "sessions")).data).toHaveLength(1);
  });

  it("the docs and the inspector: the reference site under the base path, the inspector's page loading its script and reading its journal there", async () => {
    const s = await root.createSandbox();
    const docs = await fetch(`${s.base_url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    const moved = await fetch(`${s.base_url}/docs`, { redirect: "manual" });
    expect([moved.status, moved.headers.get("location")]).toEqual([301, `/sandboxes/${s.id}/docs/`]);
    const page = await (await fetch(`${s.base_url}/_sim/ui/`)).text();
    expect([...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])).toEqual(["data:,", `/sandboxes/${s.id}/_sim/ui/app.css`, `/sandboxes/${s.id}/_sim/ui/app.js`, `/sandboxes/${s.id}/_sim/scenario`]);
    expect((await fetch(`${s.base_url}/_sim/ui/app.js`)).status).toBe(200);
    // The default hub's page is as it was.
    expect(await (await fetch(`${sim.url}/_sim/ui/`)).text()).toContain('href="/_sim/ui/app.css"');
  });
});

describe("the front door's other steps apply to sandboxes unchanged", () => {
  it("the Host allow-list, the control interface's guard and its JSON rule", async () => {
    const s = await root.createSandbox();
    const { request } = await import("node:http");
    const port = new URL(sim.url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: `/sandboxes/${s.id}/_sim/state`, headers: { host: `evil.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
    expect(rebound).toBe(403);
    const foreign = await call("POST", `/sandboxes/${s.id}/_sim/reset`, { headers: { "content-type": "application/json", origin: "https://evil.example" } });
    expect([foreign.status, foreign.json.error.code]).toEqual([403, "origin_mismatch"]);
    expect((await call("POST", `/sandboxes/${s.id}/_sim/reset`)).status).toBe(400);
    expect((await call("GET", `/sandboxes/${s.id}/_sim/state`, { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
  });

  it("--cors: a preflight under the base path, and one asking for the Hub-Sandbox header, pass; /_sim/ stays closed", async () => {
    const open = await startSimulator({ port: 0, clockSpeed: 0, cors: ["http://localhost:5173"] });
    try {
      const s = await HubControl.overHttp(open.url).createSandbox();
      const preflight = (path: string, headers: string) =>
        fetch(`${open.url}${path}`, { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "GET", "access-control-request-headers": headers } });
      const asked = await preflight("/v1/me", "authorization, hub-sandbox");
      expect(asked.status).toBe(204);
      expect(asked.headers.get("access-control-allow-headers")!.split(", ")).toContain("Hub-Sandbox");
      expect((await preflight(`/sandboxes/${s.id}/v1/me`, "authorization")).status).toBe(204);
      expect((await preflight(`/sandboxes/${s.id}/_sim/state`, "content-type")).status).toBe(404);
      const cross = await fetch(`${open.url}/v1/whoami`, { headers: { origin: "http://localhost:5173", authorization: "Bearer ghk_demo_full", "hub-sandbox": s.id } });
      expect(cross.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect((await s.control.requests({ route: "readWhoami" })).length).toBe(1);
    } finally {
      await open.close();
    }
  });

  it("control off (a --host other than loopback): /_sim/ under a base path is off too", async () => {
    const front = new Sandboxes({ clockSpeed: 0 });
    const s = front.create(undefined);
    if (!("id" in s)) throw new Error("no sandbox");
    const app = createServer(front, { bodyLimit: 1 << 20, cors: false, docsDir: undefined, requestTimeoutSeconds: 30, maxHeaderBytes: 16 * 1024, logger: false, allowedHosts: [], controlOff: "off for this test" });
    try {
      const off = await app.inject({ method: "GET", url: `/sandboxes/${s.id}/_sim/state`, headers: { host: "127.0.0.1" } });
      expect([off.statusCode, off.json().error.message]).toEqual([404, "off for this test"]);
      expect((await app.inject({ method: "GET", url: `/sandboxes/${s.id}/v1/me`, headers: { host: "127.0.0.1", authorization: "Bearer ghk_demo_full" } })).statusCode).toBe(200);
    } finally {
      await app.close();
      front.shutdown();
    }
  });

  it("a body too large for a sandbox is refused in its envelope and recorded in its journal", async () => {
    const s = await root.createSandbox();
    const big = await call("POST", `/sandboxes/${s.id}/v1/generations`, { key: "ghk_demo_full", body: { ...IMAGE, prompt: "x".repeat(1_100_000) } });
    expect([big.status, big.json.error.code]).toEqual([413, "request_too_large"]);
    expect((await s.control.requests({ status: 413 })).map((r) => r.reason?.by)).toEqual(["body limit"]);
  });
});

describe("limits: idle sandboxes end, the number is capped, retention is per sandbox", () => {
  it("a sandbox left idle ends (410 gone saying why); an open event stream keeps one alive", async () => {
    const short = await startSimulator({ port: 0, clockSpeed: 0, sandboxIdleSeconds: 1 });
    try {
      const control = HubControl.overHttp(short.url);
      const idle = await control.createSandbox();
      const streaming = await control.createSandbox();
      const stream = await fetch(`${short.url}/v1/events`, { headers: { authorization: `Bearer ${streaming.api_key}` } });
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      const ended = await fetch(`${idle.base_url}/v1/me`, { headers: { authorization: "Bearer ghk_demo_full" } });
      expect(ended.status).toBe(410);
      expect((await ended.json()).error.message).toContain("ended after 1 s without a request");
      expect((await fetch(`${streaming.base_url}/v1/me`, { headers: { authorization: "Bearer ghk_demo_full" } })).status).toBe(200);
      await stream.body!.cancel();
    } finally {
      await short.close();
    }
  });

  it("the cap (--max-sandboxes): one more is refused with 503 naming the flag; a deleted one makes room", async () => {
    const capped = await startSimulator({ port: 0, clockSpeed: 0, maxSandboxes: 2 });
    try {
      const control = HubControl.overHttp(capped.url);
      const first = await control.createSandbox();
      await control.createSandbox();
      const refused = await control.createSandbox().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ControlError);
      const { status, body } = refused as ControlError;
      expect(status).toBe(503);
      expect((body as { error: { code: string; message: string } }).error.code).toBe("service_unavailable");
      expect((body as { error: { message: string } }).error.message).toContain("--max-sandboxes");
      await control.deleteSandbox(first.id);
      expect((await control.createSandbox()).id).toMatch(/^sbx_/);
    } finally {
      await capped.close();
    }
  });

  it("retention limits apply per sandbox: one filling its account drops its own oldest only", async () => {
    const kept = await startSimulator({ port: 0, clockSpeed: 0, demoData: false, retention: { generations: 2 } });
    try {
      const control = HubControl.overHttp(kept.url);
      const [a, b] = [await control.createSandbox(), await control.createSandbox()];
      const submit = (key: string) => fetch(`${kept.url}/v1/generations`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() }, body: JSON.stringify(IMAGE) }).then((r) => r.json());
      const inB = await submit(b.api_key);
      for (let i = 0; i < 3; i++) await submit(a.api_key);
      const list = async (key: string) => (await (await fetch(`${kept.url}/v1/generations`, { headers: { authorization: `Bearer ${key}` } })).json()).data;
      expect(await list(a.api_key)).toHaveLength(2);
      expect((await list(b.api_key)).map((g: { id: string }) => g.id)).toEqual([inB.id]);
    } finally {
      await kept.close();
    }
  });
});

describe("sandboxes in process", () => {
  it("startSimulator's control reaches a sandbox in process too; a hub made alone (the MSW handlers) has none, and says so", async () => {
    const s = await new HubControl(sim.hub, sim.url).createSandbox({ scenario: "empty-account" });
    expect(s.scenario).toBe("empty-account");
    expect((await s.control.state()).scenario).toBe("empty-account");
    expect(sim.sandboxes.hubOf(s.id)?.scenario.name).toBe("empty-account");
    const { control } = createHubHandlers();
    const refused = (await control.createSandbox().catch((e: unknown) => e)) as ControlError;
    expect([refused.status, (refused.body as { error: { message: string } }).error.message]).toEqual([404, expect.stringContaining("Sandboxes belong to a simulator server")]);
    const bound = (await control.sandbox("sbx_000000000000").state().catch((e: unknown) => e)) as ControlError;
    expect(bound.status).toBe(404);
    expect(new Hub().sandboxes).toBeUndefined();
  });

  it("a scenario that is not valid is refused naming its fields under scenario; a field other than scenario too", async () => {
    const bad = await call("POST", "/_sim/sandboxes", { body: { scenario: "nope" } });
    expect([bad.status, bad.json.error.details[0].field]).toEqual([400, "scenario.name"]);
    const file = await call("POST", "/_sim/sandboxes", { body: { scenario: { scenario_version: 1, name: "x", description: "x", accounts: [{ id: 5 }] } } });
    expect(file.json.error.details.map((d: { field: string }) => d.field)).toContain("scenario.accounts.0.id");
    const stray = await call("POST", "/_sim/sandboxes", { body: { scenario: "demo", ttl: 5 } });
    expect(stray.json.error.details).toEqual([expect.objectContaining({ field: "ttl", reason: "unknown_field" })]);
  });

  it("a key names its sandbox by its first 16 characters after ghk_ only when it has the sandbox form", () => {
    expect(sandboxOfKey("ghk_sbx_abcdefghijkl")).toBe("sbx_abcdefghijkl");
    expect(sandboxOfKey("ghk_sbx_abcdefghijkl_full")).toBe("sbx_abcdefghijkl");
    expect(sandboxOfKey("ghk_sbx_abcdefghijklm")).toBeUndefined();
    expect(sandboxOfKey("ghk_sbx_ABCDEFGHIJKL")).toBeUndefined();
    expect(sandboxOfKey("ghk_demo_full")).toBeUndefined();
  });
});
