// No web page can take over the simulator: each finding of the attack on the control
// interface (the numbered list), tried as an attacker would over HTTP, and what
// still works for the developer (tools, the simulator's own pages, loopback dev servers,
// names given with --allowed-hosts). The same page in a real browser: control-browser.test.ts.
import { request } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { schemaValidator } from "../../src/contract/index.ts";
import { startSimulator } from "../../src/simulator/index.ts";
import { CONTROL_GUARD, SITE_GUARD } from "../../src/simulator/pipeline/guard.ts";
import { startCli } from "./support/cli.ts";
import { startSim, type Sim } from "./support/harness.ts";

const envelopeValid = schemaValidator("ErrorEnvelope");

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request with headers fetch will not send as given (Host), answered within 3 s (a hang fails). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { host: url.host, ...headers }, timeout: 3000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        const json = (res.headers["content-type"] ?? "").includes("json") && text ? JSON.parse(text) : undefined;
        if (res.statusCode! >= 400 && json !== undefined) expect(envelopeValid(json), text).toBe(true);
        resolve({ status: res.statusCode!, headers: res.headers, text, json });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 3 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

const JSON_TYPE = { "content-type": "application/json" };
const EVIL = "https://evil.example";

let sim: Sim;
let port: string;
beforeAll(async () => {
  sim = await startSim({ demoData: true });
  port = new URL(sim.url).port;
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

describe("1. DNS rebinding: a Host that is not this machine's is refused on every route", () => {
  it("a rebound name gets 403 in the envelope, naming --allowed-hosts, and neither reads nor changes the hub", async () => {
    const rebound = { host: `evil.example:${port}` };
    const state = await raw(sim.url, "GET", "/_sim/state", rebound);
    expect([state.status, state.json.error.code]).toEqual([403, "origin_mismatch"]);
    expect(state.json.error.message).toContain('--allowed-hosts "evil.example"');
    expect(state.text).not.toContain("ghk_");
    for (const [path, body] of [["/_sim/api", { enabled: false }], ["/_sim/scenario", { name: "empty-account" }]] as const) {
      const r = await raw(sim.url, "POST", path, { ...rebound, ...JSON_TYPE }, JSON.stringify(body));
      expect(r.status, path).toBe(403);
    }
    expect(sim.hub.state.api_enabled).toBe(true);
    expect(sim.hub.scenario.name).toBe("demo");
    for (const [method, path] of [["GET", "/v1/me"], ["GET", "/docs/"], ["GET", "/site/sign-in"], ["GET", "/.well-known/oauth-authorization-server"], ["OPTIONS", "/v1/me"]] as const) {
      const r = await raw(sim.url, method, path, { ...rebound, authorization: "Bearer ghk_demo_full", origin: EVIL, "access-control-request-method": "GET" });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
  });

  it("loopback names, *.localhost, IP addresses and the simulator's own address are answered", async () => {
    for (const host of [`localhost:${port}`, `app.localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`, `LOCALHOST:${port}`, "localhost"]) {
      expect((await raw(sim.url, "GET", "/_sim/clock", { host })).status, host).toBe(200);
    }
  });

  it("--allowed-hosts adds names (a leading dot: a domain and its subdomains; * any); --public-url's name is allowed", async () => {
    const named = await startSim({ allowedHosts: ["sim.test", ".dev.example"], publicUrl: "http://proxy.example:8080" });
    const any = await startSim({ allowedHosts: ["*"] });
    try {
      const ask = (s: Sim, host: string) => raw(s.url, "GET", "/_sim/clock", { host }).then((r) => r.status);
      const p = new URL(named.url).port;
      expect(await ask(named, `sim.test:${p}`)).toBe(200);
      expect(await ask(named, `dev.example:${p}`)).toBe(200);
      expect(await ask(named, `a.b.dev.example:${p}`)).toBe(200);
      expect(await ask(named, "proxy.example:8080")).toBe(200);
      expect(await ask(named, `notdev.example:${p}`)).toBe(403);
      expect(await ask(named, `sim.test.evil.example:${p}`)).toBe(403);
      expect(await ask(any, "anything.example")).toBe(200);
    } finally {
      await named.close();
      await any.close();
    }
  });
});

describe("2. --cors never opens /_sim/ (nor /site/, /oauth/authorize): only the routes a browser app calls", () => {
  let open: Sim;
  beforeAll(async () => {
    open = await startSim({ cors: true });
  });
  afterAll(() => open.close());

  const preflight = (path: string, method = "POST") => raw(open.url, "OPTIONS", path, { origin: EVIL, "access-control-request-method": method, "access-control-request-headers": "content-type" });

  it("any origin reads nothing of /_sim/ and no preflight to it, the site or the authorization page passes", async () => {
    const state = await raw(open.url, "GET", "/_sim/state", { origin: EVIL });
    expect(state.status).toBe(200);
    expect(state.headers["access-control-allow-origin"]).toBeUndefined();
    for (const path of ["/_sim/scenario", "/_sim/state", "/site/sign-in", "/site/oauth/consent", "/oauth/authorize", "/docs/"]) {
      const r = await preflight(path);
      expect(r.status, path).toBe(404);
      expect(r.headers["access-control-allow-origin"], path).toBeUndefined();
      expect(r.json.error.message, path).toContain("CORS never opens here");
    }
  });

  it("/v1, the storage PUT and the OAuth discovery, token, revoke and register routes open as before", async () => {
    for (const [path, method] of [["/v1/me", "GET"], ["/v1/generations", "POST"], ["/storage/upl_x", "PUT"], ["/oauth/token", "POST"], ["/oauth/revoke", "POST"], ["/oauth/register", "POST"], ["/.well-known/oauth-authorization-server", "GET"], ["/.well-known/oauth-protected-resource/v1", "GET"]] as const) {
      const r = await preflight(path, method);
      expect(r.status, path).toBe(204);
      expect(r.headers["access-control-allow-origin"], path).toBe(EVIL);
    }
    const models = await raw(open.url, "GET", "/v1/models", { origin: EVIL, authorization: "Bearer ghk_demo_full" });
    expect(models.headers["access-control-allow-origin"]).toBe(EVIL);
  });
});

describe("3. cross-origin simple requests (no preflight) change nothing", () => {
  const me = () => sim.get("/v1/me");

  it("a page of another origin posting without a body (a form, fetch no-cors) is refused: revoke, reset, create, cancel, grant revoke", async () => {
    const gen = (await sim.submit({ type: "image", model: "image-model-a", prompt: "kept" })).json.id as string;
    const keys = sim.hub.state.keys.size;
    for (const path of ["/_sim/keys/ghk_demo_full/revoke", "/_sim/reset", "/_sim/keys", `/_sim/generations/${gen}/cancel`, "/_sim/oauth/grants/grt_x/revoke"]) {
      const attempts: Record<string, string>[] = [{ origin: EVIL }, { origin: EVIL, "content-type": "text/plain" }, { origin: "null" }, { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" }];
      for (const headers of attempts) {
        const r = await raw(sim.url, "POST", path, headers, headers["content-type"] ? "{}" : undefined);
        expect([r.status, r.json.error.code], `${path} ${JSON.stringify(headers)}`).toEqual([403, "origin_mismatch"]);
      }
    }
    expect((await me()).status).toBe(200);
    expect(sim.hub.state.keys.size).toBe(keys);
    expect((await sim.get(`/v1/generations/${gen}`)).status).toBe(200);
  });

  it("JSON only: a text/plain or form body is refused even from a loopback origin, and a POST must say JSON even without a body", async () => {
    const local = { origin: "http://localhost:5173" };
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await raw(sim.url, "POST", "/_sim/api", { ...local, "content-type": type }, '{"enabled":false}');
      expect([r.status, r.json.error.details[0].field], type).toEqual([400, "Content-Type"]);
    }
    expect(sim.hub.state.api_enabled).toBe(true);
    const bare = await raw(sim.url, "POST", "/_sim/reset");
    expect(bare.status).toBe(400);
    expect(bare.json.error.details[0]).toMatchObject({ field: "Content-Type", reason: "required" });
    expect(bare.json.error.details[0].message).toContain("curl --json '{}'");
    // What a tool sends: JSON, with or without a body.
    expect((await raw(sim.url, "POST", "/_sim/reset", JSON_TYPE)).status).toBe(200);
    expect((await raw(sim.url, "POST", "/_sim/reset", JSON_TYPE, "{}")).status).toBe(200);
    // A DELETE or PATCH (never sent across origins unasked) needs no body.
    expect((await raw(sim.url, "DELETE", "/_sim/faults")).status).toBe(200);
  });

  it("the simulator's own origin, a loopback origin and a tool (no Origin) change the hub; a link followed from another site still opens a page", async () => {
    for (const origin of [new URL(sim.url).origin, `http://localhost:${port}`, "http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080", "http://app.localhost:5173"]) {
      const r = await raw(sim.url, "POST", "/_sim/clock", { origin, ...JSON_TYPE }, '{"speed":0}');
      expect(r.status, origin).toBe(200);
    }
    expect((await raw(sim.url, "POST", "/_sim/clock", { "sec-fetch-site": "same-origin", ...JSON_TYPE }, '{"speed":0}')).status).toBe(200);
    const navigation = await raw(sim.url, "GET", "/_sim/clock", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" });
    expect(navigation.status).toBe(200);
    // But not as an image, a script, a frame or a fetch of another site.
    for (const [mode, dest] of [["no-cors", "image"], ["no-cors", "script"], ["navigate", "iframe"], ["cors", "empty"]]) {
      expect((await raw(sim.url, "GET", "/_sim/scenario", { "sec-fetch-site": "cross-site", "sec-fetch-mode": mode!, "sec-fetch-dest": dest! })).status, dest).toBe(403);
    }
  });

  it("the guard is the hub's, so Mock Service Worker's handlers and the control client have it too, as ordered rungs", async () => {
    expect(CONTROL_GUARD.map((r) => r.name)).toEqual(["cross-site", "origin", "json body"]);
    expect(SITE_GUARD.map((r) => r.name)).toEqual(["origin"]);
    const answer = sim.hub.handle({ method: "POST", url: "/_sim/reset", headers: { origin: EVIL, ...JSON_TYPE }, baseUrl: "https://hub.example" });
    expect(answer.kind === "body" && answer.status).toBe(403);
  });
});

describe("4. the sign-in form: return_to stays on this origin, and the form takes posts from its own pages only", () => {
  const signIn = (returnTo: string, headers: Record<string, string> = {}) =>
    raw(sim.url, "POST", "/site/sign-in", { "content-type": "application/x-www-form-urlencoded", ...headers }, new URLSearchParams({ account_id: "acc_demo", return_to: returnTo }).toString());

  it("a return address a browser reads as another host goes to /site/ instead", async () => {
    for (const away of ["/\t/evil.example", "//evil.example/x", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "http://127.0.0.1.evil.example/"]) {
      const r = await signIn(away);
      expect([r.status, r.headers.location], JSON.stringify(away)).toEqual([303, "/site/"]);
    }
    // A path that resolves to `//evil.example` here stays a path on this server.
    expect((await signIn("/.//evil.example")).headers.location).toBe("/evil.example");
    expect((await signIn("/oauth/authorize?x=1")).headers.location).toBe("/oauth/authorize?x=1");
    expect((await signIn(`${sim.url}/site/?a=1#b`)).headers.location).toBe("/site/?a=1#b");
  });

  it("a post from another site's page is refused and sets no cookie; the simulator's own page, a loopback page and a tool sign in", async () => {
    const foreign = await signIn("/site/", { origin: EVIL });
    expect([foreign.status, foreign.json.error.code]).toEqual([403, "origin_mismatch"]);
    expect(foreign.headers["set-cookie"]).toBeUndefined();
    expect((await raw(sim.url, "POST", "/site/oauth/consent", { origin: EVIL, "content-type": "application/x-www-form-urlencoded" }, "consent_id=x&decision=allow")).status).toBe(403);
    const senders: Record<string, string>[] = [{ origin: new URL(sim.url).origin }, { origin: "http://localhost:5173" }, {}];
    for (const headers of senders) {
      const r = await signIn("/site/", headers);
      expect(r.status, JSON.stringify(headers)).toBe(303);
      expect(r.headers["set-cookie"]).toBeDefined();
    }
  });
});

describe("5. a request is never left hanging", () => {
  it("return_to=/%0A/x (a line break for the Location head) is answered at once", async () => {
    const r = await raw(sim.url, "POST", "/site/sign-in", { "content-type": "application/x-www-form-urlencoded" }, "account_id=acc_demo&return_to=/%0A/x");
    expect([r.status, r.headers.location]).toEqual([303, "/site/"]);
  });
});

describe("6. a host other than loopback: the control interface off unless --expose-control, said loudly", () => {
  it("startSimulator({ host: '0.0.0.0' }) serves the API and refuses /_sim/ with the flag to use; exposeControl serves it", async () => {
    const everywhere = await startSimulator({ host: "0.0.0.0", port: 0, clockSpeed: 0 });
    const exposed = await startSimulator({ host: "0.0.0.0", port: 0, clockSpeed: 0, exposeControl: true });
    try {
      expect(everywhere.control).toBe(false);
      expect(everywhere.urls[0]).toBe(everywhere.url);
      expect(everywhere.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const off = await raw(everywhere.url, "GET", "/_sim/state");
      expect([off.status, off.json.error.code]).toEqual([404, "not_found"]);
      expect(off.json.error.message).toContain("--expose-control");
      expect(off.text).not.toContain("ghk_");
      expect((await raw(everywhere.url, "GET", "/v1/me", { authorization: "Bearer ghk_demo_full" })).status).toBe(200);
      expect(exposed.control).toBe(true);
      expect((await raw(exposed.url, "GET", "/_sim/state")).status).toBe(200);
    } finally {
      await everywhere.close();
      await exposed.close();
    }
  });

  it("the command line warns naming /_sim/ and prints every address it listens on", async () => {
    const cli = await startCli(["--host", "0.0.0.0", "--port", "0"]);
    try {
      const out = cli.out();
      expect(out).toMatch(/WARNING: --host 0\.0\.0\.0 is not loopback/);
      expect(out).toContain("The control interface /_sim/ (every key's secret; reset, revoke, rewrite) is OFF; --expose-control");
      expect(out).toMatch(/Control: +off/);
      expect((await raw(cli.url, "GET", "/_sim/state")).status).toBe(404);
    } finally {
      await cli.stop();
    }
  });
});

describe("7. /docs/ is never sniffed and runs only its own scripts; X-Forwarded-Host is not the simulator's origin", () => {
  it("every file under /docs carries nosniff, and a page a CSP that names the hashes of its inline scripts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docs-headers-"));
    writeFileSync(join(dir, "index.html"), "<!doctype html><script>document.title='x'</script><p>Reference</p>");
    writeFileSync(join(dir, "openapi.json"), "{}");
    const docs = await startSim({ docsDir: dir });
    try {
      const page = await raw(docs.url, "GET", "/docs/");
      expect(page.headers["x-content-type-options"]).toBe("nosniff");
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'$/);
      const json = await raw(docs.url, "GET", "/docs/openapi.json");
      expect(json.headers["x-content-type-options"]).toBe("nosniff");
    } finally {
      await docs.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a session request naming another origin in X-Forwarded-Host and Origin is still refused", async () => {
    const session = await sim.control("POST", "sessions", { account_id: "acc_demo" });
    const r = await raw(sim.url, "POST", "/v1/subscription/cancel", { cookie: session.json.cookie, origin: "http://evil.example", "x-forwarded-host": "evil.example", ...JSON_TYPE }, "{}");
    expect([r.status, r.json.error.code]).toEqual([403, "origin_mismatch"]);
  });
});
