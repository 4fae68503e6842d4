// Sandboxes behind Vite's dev-server proxy, configured as the simulator guide's
// vite.config.ts says ("From a browser"; Vite loads that file in this process): the browser
// talks to the app's origin only, and the hub_sandbox cookie it carries (the Playwright
// fixture sets it) takes every request to the sandbox, credentials or not: the API with a
// demo key, the event stream, an upload's storage PUT, the site's sign-in and the OAuth
// discovery; the Hub-Sandbox header of a server-side fetch likewise; without either, the
// default hub answers. (In Chromium, from the packed packages: test/devtools/playwright.test.ts.)
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { HubControl, startSimulator, type RunningSimulator, type SandboxHandle } from "../../src/simulator/index.ts";
import { markdownBlocks } from "../docs/code-samples.ts";

const sample = markdownBlocks("docs/simulator.md", "ts").find((b) => b.source.includes('from "vite"'));
const PNG = new Uint8Array(readFileSync(at("src/simulator/assets/image.png")));

let sim: RunningSimulator;
let vite: ViteDevServer;
let dir: string;
let app: string;
let sandbox: SandboxHandle;
let cookie: string;

beforeAll(async () => {
  expect(sample, "docs/simulator.md has a vite.config.ts block").toBeDefined();
  sim = await startSimulator({ port: 0, clockSpeed: 0 });
  sandbox = await HubControl.overHttp(sim.url).createSandbox();
  cookie = `theme=dark; hub_sandbox=${sandbox.id}`;
  mkdirSync(at("node_modules/.cache"), { recursive: true });
  dir = mkdtempSync(at("node_modules/.cache/vite-sandbox-"));
  writeFileSync(join(dir, "vite.config.ts"), sample!.source.replaceAll("http://127.0.0.1:4010", sim.url));
  vite = await createServer({ configFile: join(dir, "vite.config.ts"), root: dir, logLevel: "silent", server: { host: "127.0.0.1", port: 0 } });
  await vite.listen();
  const address = vite.httpServer!.address();
  app = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await vite?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Which hub's journal holds the request with this id. */
async function whereIs(requestId: string): Promise<string[]> {
  const found: string[] = [];
  if ((await sandbox.control.requests({ requestId })).length > 0) found.push("sandbox");
  if ((await sim.requests({ requestId })).length > 0) found.push("default");
  return found;
}

describe("a sandbox behind Vite's proxy, reached by the browser's hub_sandbox cookie", () => {
  it("the API with a demo key, the cookie's sandbox answering; the Hub-Sandbox header of a server-side fetch too; neither: the default hub", async () => {
    const cases: [Record<string, string>, string[]][] = [[{ cookie }, ["sandbox"]], [{ "hub-sandbox": sandbox.id }, ["sandbox"]], [{}, ["default"]]];
    expect(cases).not.toHaveLength(0);
    for (const [headers, expected] of cases) {
      const id = `vite-${crypto.randomUUID()}`;
      const me = await fetch(`${app}/v1/me`, { headers: { authorization: "Bearer ghk_demo_full", "x-request-id": id, ...headers } });
      expect(me.status).toBe(200);
      expect(await whereIs(id)).toEqual(expected);
    }
  });

  it("the event stream and a submit: the frames are the sandbox's", async () => {
    const stream = await fetch(`${app}/v1/events`, { headers: { authorization: "Bearer ghk_demo_full", cookie } });
    expect(stream.status).toBe(200);
    const submitted = await fetch(`${app}/v1/generations`, {
      method: "POST",
      headers: { authorization: "Bearer ghk_demo_full", cookie, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ type: "image", model: "image-model-a", prompt: "a fox behind the proxy" }),
    });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    await sandbox.control.advance(60);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes('"status":"DONE"')) {
      const read = await reader.read();
      if (read.done) break;
      text += read.value;
    }
    await reader.cancel();
    expect(text).toContain(`"id":"${id}"`);
    expect(text).toContain('"status":"DONE"');
    expect(sim.hub.state.generations.has(id)).toBe(false);
    expect((await sandbox.control.generation(id)).status).toBe("DONE");
  });

  it("an upload: the ticket's storage address is the app's, and the PUT without credentials lands in the sandbox", async () => {
    const ticket = (await (await fetch(`${app}/v1/uploads`, {
      method: "POST",
      headers: { authorization: "Bearer ghk_demo_full", cookie, "content-type": "application/json" },
      body: JSON.stringify({ kind: "image", content_type: "image/png", content_length: PNG.length }),
    })).json()) as { url: string; headers: Record<string, string>; reference: string };
    expect(ticket.url.startsWith(`${app}/storage/`)).toBe(true);
    const put = await fetch(ticket.url, { method: "PUT", headers: { ...ticket.headers, cookie }, body: PNG });
    expect(put.status).toBe(200);
    const assets = (key: string, headers: Record<string, string> = {}) => fetch(`${sim.url}/v1/library/assets`, { headers: { authorization: `Bearer ${key}`, ...headers } }).then(async (r) => ((await r.json()) as { data: { reference: string }[] }).data.map((a) => a.reference));
    expect(await assets(sandbox.api_key)).toContain(ticket.reference);
    expect(await assets("ghk_demo_full")).not.toContain(ticket.reference);
  });

  it("the site's sign-in from the app's origin starts a session of the sandbox; OAuth discovery names the app's address as the issuer", async () => {
    const signed = await fetch(`${app}/site/sign-in`, { method: "POST", headers: { cookie, origin: app, "content-type": "application/json", accept: "application/json" }, body: JSON.stringify({ account_id: "acc_demo" }) });
    expect(signed.status).toBe(200);
    const session = (await signed.json()) as { cookie: string; session_id: string };
    expect((await sandbox.control.request<{ data: { session_id: string }[] }>("GET", "sessions")).data.map((s) => s.session_id)).toEqual([session.session_id]);
    const who = await fetch(`${app}/v1/whoami`, { headers: { cookie: `${cookie}; ${session.cookie}` } });
    expect(((await who.json()) as { channel: string }).channel).toBe("session");
    const discovery = await fetch(`${app}/.well-known/oauth-authorization-server`, { headers: { cookie } });
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(app);
    expect((await sandbox.control.requests({ route: "readAuthorizationServerMetadata" })).length).toBe(1);
  });
});
