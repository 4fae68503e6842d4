// The simulator behind Vite's dev-server proxy, configured as the simulator guide's
// vite.config.ts says ("From a browser"): that file, type-checked against Vite's types and
// loaded by Vite itself in this process, in front of a simulator with faults in force.
// Through it a cut event stream must end for the browser too (the guide's `configure`
// hook: Vite's proxy kept the browser's connection open, and the client resumed only when
// its 45 s watchdog gave up), and a dropped connection arrives as Vite's 502, which the
// typed client sends again (the guide's Faults, "Behind a dev-server proxy").
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { createServer, type ViteDevServer } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { attemptsOf, createHubClient } from "../../src/client/index.ts";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { markdownBlocks } from "../docs/code-samples.ts";

const KEY = "ghk_demo_full";
/** The guide's vite.config.ts (the `ts` block that calls defineConfig). */
const sample = markdownBlocks("docs/simulator.md", "ts").find((b) => b.source.includes("defineConfig("));

let sim: RunningSimulator;
let vite: ViteDevServer;
let dir: string;
/** The dev server's address: the page's own origin. */
let page: string;

const control = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${sim.url}/_sim/${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(r.ok, `${method} /_sim/${path}: ${r.status}`).toBe(true);
  return r.json();
};

/** Rejects when `promise` has not settled after `ms`: what hangs fails with `why`, not with the test's timeout. */
function within<T>(promise: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(why)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

beforeAll(async () => {
  expect(sample, "docs/simulator.md has a vite.config.ts block").toBeDefined();
  sim = await startSimulator({ port: 0, clockSpeed: 0 });
  // Inside the project, so `vite` resolves from the config as it does in a reader's project.
  mkdirSync(at("node_modules/.cache"), { recursive: true });
  dir = mkdtempSync(at("node_modules/.cache/vite-proxy-"));
  writeFileSync(join(dir, "vite.config.ts"), sample!.source.replaceAll("http://127.0.0.1:4010", sim.url));
  vite = await createServer({ configFile: join(dir, "vite.config.ts"), root: dir, logLevel: "silent", server: { host: "127.0.0.1", port: 0 } });
  await vite.listen();
  const address = vite.httpServer!.address();
  page = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await vite?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the simulator behind Vite's proxy, as the guide configures it", () => {
  it("the guide's vite.config.ts type-checks against Vite's own types", () => {
    const options = ts.parseJsonConfigFileContent({ extends: at("docs/samples/tsconfig.json"), include: ["vite.config.ts"] }, ts.sys, dir).options;
    const program = ts.createProgram({ rootNames: [join(dir, "vite.config.ts")], options });
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  it("EVT-9: a stream the simulator cuts ends for the browser too, instead of staying open behind the proxy", async () => {
    await control("POST", "faults", { kind: "stream_cut", route: "streamGenerationEvents", after_frames: 1, count: 1 });
    const stream = await fetch(`${page}/v1/events`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const submitted = await fetch(`${page}/v1/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
      body: JSON.stringify({ type: "image", model: "image-model-a", prompt: "a fox behind a proxy" }),
    });
    expect(submitted.status).toBe(202);
    const frames: string[] = [];
    const read = (async () => {
      const text = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return "ended";
          frames.push(...text.decode(value, { stream: true }).split("\n\n").filter((f) => f.startsWith("event:")));
        }
      } catch {
        return "failed";
      }
    })();
    // Ended or failed (Vite frames the proxied stream by its connection, so a cut may read as
    // an end), but not open: the client then resumes at once.
    expect(await within(read, 10_000, "the proxy kept the browser's connection open after the simulator cut the stream")).toMatch(/^(ended|failed)$/);
    expect(frames).toHaveLength(1);
  });

  it("EVT-9 EVT-11: the typed client resumes a cut stream at once through the proxy, with Last-Event-ID: every status, none twice", async () => {
    await control("POST", "reset"); // no generation of the test before, no fault
    await control("POST", "faults", { kind: "stream_cut", route: "streamGenerationEvents", after_frames: 1, count: 1 });
    // The default watchdog (45 s): only the proxy passing the cut on makes this quick.
    const hub = createHubClient({ baseUrl: page, apiKey: KEY });
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = hub.events({ reconnectDelay: 10, onOpen: () => opened() });
    const seen: string[] = [];
    const ids: string[] = [];
    const followed = (async () => {
      for await (const e of stream) {
        ids.push(e.id ?? "");
        if (e.event === "generation.status_changed") seen.push(e.data.status);
        if (seen.at(-1) === "DONE") return stream.close();
      }
    })();
    await within(open, 10_000, "the stream's opening did not pass the proxy");
    await hub.submit({ type: "image", model: "image-model-a", prompt: "a heron behind a proxy" });
    await control("POST", "clock/advance", { seconds: 60 });
    await within(followed, 10_000, "the client did not resume the cut stream through the proxy");
    expect(seen).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(stream.connections).toBe(2);
    expect((await control("GET", "faults")).data[0]).toMatchObject({ kind: "stream_cut", fired: 1 });
  });

  it("a drop arrives as Vite's 502 Bad Gateway with an empty body; the typed client sends the read again and gets its answer", async () => {
    await control("POST", "reset");
    await control("POST", "faults", { kind: "drop", route: "readAccount", count: 1 });
    const raw = await fetch(`${page}/v1/me`, { headers: { authorization: `Bearer ${KEY}` } });
    expect([raw.status, raw.headers.get("content-type"), await raw.text()]).toEqual([502, "text/plain", ""]);
    await control("POST", "faults", { kind: "drop", route: "readAccount", count: 1 });
    const me = await createHubClient({ baseUrl: page, apiKey: KEY, backoffBase: 10, backoffMax: 20 }).GET("/v1/me");
    expect(me.response.status).toBe(200);
    expect(attemptsOf(me.response)).toBe(2);
  });
});
