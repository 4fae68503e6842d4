// The simulator behind `prism proxy` (Prism validates every upstream answer against the
// bundled document and reports departures in `sl-violations`): no response violation,
// and no request violation for the well-formed requests.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
let prism: ChildProcess;
let base: string;
let log = "";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  sim = await startSim({ demoData: true });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Prism's own entry point, not `npx prism`: killing a wrapper would leave Prism running.
  prism = spawn(process.execPath, ["node_modules/@stoplight/prism-cli/dist/index.js", "proxy", "generated/openapi.yaml", sim.url, "--host", "127.0.0.1", "--port", String(port)], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
  prism.stdout!.on("data", (d) => (log += d));
  prism.stderr!.on("data", (d) => (log += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await fetch(`${base}/v1/whoami`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`prism did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}, 40_000);

afterAll(async () => {
  if (prism && prism.exitCode === null) {
    const exited = new Promise((resolve) => prism.once("exit", resolve));
    prism.kill("SIGTERM");
    await exited;
  }
  await sim?.close();
});

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

async function through(method: string, path: string, init: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers.authorization = `Bearer ${init.key ?? "ghk_demo_full"}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(base + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  const violations: Violation[] = JSON.parse(res.headers.get("sl-violations") ?? "[]");
  return { status: res.status, text, violations, json: () => JSON.parse(text) };
}

const responseViolations = (v: Violation[]) => v.filter((x) => x.location[0] !== "request");

describe("behind prism proxy", () => {
  it("EP-1: well-formed requests get answers with no contract violation at all", async () => {
    const submitted = await through("POST", "/v1/generations", { body: { type: "image", model: "image-model-a", prompt: "fox" }, headers: { "idempotency-key": "p1" } });
    expect(submitted.status).toBe(202);
    const id = submitted.json().id;
    await sim.advance(60);
    const done = (await through("GET", `/v1/generations/${id}`)).json();
    const etag = (await fetch(`${sim.url}/v1/models`, { headers: { authorization: "Bearer ghk_demo_full" } })).headers.get("etag")!;
    const calls: [string, string, Parameters<typeof through>[2]?][] = [
      ["GET", "/v1/whoami"],
      ["GET", "/v1/me"],
      ["GET", "/v1/models"],
      ["GET", "/v1/models?type=video"],
      ["GET", "/v1/models", { headers: { "if-none-match": etag } }],
      ["GET", "/v1/knowledge?q=start&limit=3"],
      ["GET", "/v1/knowledge/getting-started"],
      ["GET", "/v1/generations?limit=2"],
      ["GET", `/v1/generations/${id}`],
      ["POST", "/v1/generations", { body: { type: "image", model: "image-model-a", prompt: "fox" }, headers: { "idempotency-key": "p1" } }],
      ["POST", "/v1/generations/status", { body: { ids: [id, "gen_unknown"] } }],
      ["PATCH", `/v1/generations/${id}`, { body: { title: "Fox" } }],
      ["GET", new URL(done.output_urls[0]).pathname],
      ["POST", "/v1/pricing/estimate", { body: { type: "video", model: "video-model-a", duration: 10 } }],
      ["POST", `/v1/generations/${id}/report`, { body: { text: "bad", reason: "moderation" } }],
    ];
    for (const [method, path, init] of calls) {
      const r = await through(method, path, init);
      expect(r.violations, `${method} ${path} -> ${r.status}`).toEqual([]);
    }
  });

  it("EP-1: refusals (400, 401, 402, 403, 404, 409, 413, 422, 429, 503) answer with no response violation", async () => {
    await through("POST", "/v1/generations", { body: { type: "video", model: "video-model-a" }, headers: { "idempotency-key": "c1" } });
    const calls: [string, string, Parameters<typeof through>[2]?, number?][] = [
      ["GET", "/v1/generations?limit=0", {}, 400],
      ["POST", "/v1/generations", { body: { type: "video", model: "video-model-a", duration: 99 }, headers: { "idempotency-key": "c2" } }, 400],
      ["GET", "/v1/me", { key: null }, 401],
      ["GET", "/v1/me", { key: "ghk_demo_expired" }, 401],
      ["POST", "/v1/generations", { key: "ghk_demo_free", body: { type: "video", model: "video-model-a" }, headers: { "idempotency-key": "c3" } }, 402],
      ["GET", "/v1/me", { key: "ghk_demo_suspended" }, 403],
      ["POST", "/v1/generations", { key: "ghk_demo_readonly", body: { type: "video", model: "video-model-a" }, headers: { "idempotency-key": "c4" } }, 403],
      ["GET", "/v1/generations/gen_nope", {}, 404],
      ["POST", "/v1/generations", { body: { type: "video", model: "video-model-a", duration: 10 }, headers: { "idempotency-key": "c1" } }, 409],
      ["POST", "/v1/pricing/estimate", { body: { type: "image", model: "image-model-a", promo_mode: "queue" } }, 422],
      ["POST", "/v1/generations", { body: { type: "text" }, headers: { "idempotency-key": "c5" } }, 503],
      ["POST", "/v1/uploads", { body: { kind: "video", content_type: "video/mp4", content_length: 1000 } }, 503],
    ];
    for (const [method, path, init, status] of calls) {
      const r = await through(method, path, init);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      expect(responseViolations(r.violations), `${method} ${path} -> ${r.status}`).toEqual([]);
    }
    sim.hub.limiter.config.keyQuota = 0;
    const limited = await through("GET", "/v1/me");
    expect(limited.status).toBe(429);
    expect(responseViolations(limited.violations)).toEqual([]);
    sim.hub.limiter.config.keyQuota = 300;
    sim.hub.state.api_enabled = false;
    const disabled = await through("GET", "/v1/me");
    expect(disabled.status).toBe(503);
    expect(responseViolations(disabled.violations)).toEqual([]);
    sim.hub.state.api_enabled = true;
  });

  it("EVT-3: an event stream that ends (terminated) passes Prism's check as text/event-stream", async () => {
    const key = (await sim.control("POST", "keys", {})).json.secret;
    const pending = through("GET", "/v1/events", { key });
    await expect.poll(() => sim.hub.events.openStreams.size).toBeGreaterThan(0);
    await sim.submit({ type: "image", model: "image-model-a" });
    await sim.control("POST", `keys/${key}/revoke`);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.text).toContain("event: generation.status_changed");
    expect(r.text).toContain("event: terminated");
    expect(r.violations).toEqual([]);
  });
});
