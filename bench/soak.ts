// Soak benchmark (`npm run bench:soak`): the simulator under a long day's load. Prints
// figures; asserts nothing.
//
// 1. Memory over time. The simulator with its default retention (bench/soak-server.ts:
//    `npm start`'s command line, quotas open, the clock at real speed) in a child process;
//    SOAK_WORKERS loops in this process send a fixed mix of requests over HTTP (keep-alive)
//    for SOAK_SECONDS, two accounts, while four event streams stay open and resume with
//    Last-Event-ID every 20 s. Every SOAK_SAMPLE_SECONDS the child reports its RSS and heap
//    used right after a full GC (the low points: what it keeps), with the requests so far.
//    The mix, per round of a loop: a submit with a fresh Idempotency-Key (video or image;
//    one in ten fails, one in twenty has a late result, one in twenty is held for review),
//    every fourth round its replay; the record; a batch status read of the last ten; two
//    pages of the generation list and two of the ledger; the account; the catalog; a price
//    estimate; the asset list; every other round the folders; every 25th round an upload
//    (ticket and storage PUT), a support message, the thread and a report.
// 2. An ordinary request during an export: GET /v1/me, one after another, while
//    GET /_sim/scenario writes the soaked state; beside the same reads with no export.
// 3. Read costs at growing sizes: a second simulator, clock frozen, retention raised,
//    filled with generations (each a ledger row) to SOAK_SIZES; at each size the latency
//    of GET /v1/billing/transactions (the first page and one 1,000 rows deep),
//    GET /v1/generations (the same two) and GET /v1/library/assets, 20 per page; and at
//    the largest size the export with the GET /v1/me probe again.
// Latencies are medians, p99 and max over sequential requests from this process (the
// machine may be shared: the load average is printed before and after). BENCH_ONLY=soak,
// export or reads runs one part (export needs soak); SOAK_SIM_ARGS adds flags to the
// soaked simulator (smaller retention limits show the plateau in a shorter run).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request, type IncomingMessage } from "node:http";
import { loadavg } from "node:os";
import { freePort } from "../src/conformance/run/prism.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 15);
const SIZES = (process.env.SOAK_SIZES ?? "1000,10000,60000,100000").split(",").map(Number);
const ONLY = process.env.BENCH_ONLY;
/** More flags for the soaked simulator (smaller limits reach their plateau in a short run: "--retain-generations 1000"). */
const SIM_ARGS = (process.env.SOAK_SIM_ARGS ?? "").split(/\s+/).filter(Boolean);
const KEYS = ["ghk_demo_full", "ghk_demo_other"];
const PNG = new Uint8Array(readFileSync(new URL("../src/simulator/assets/image.png", import.meta.url)));
const UNLIMITED = ["--key-quota", "1000000000", "--account-quota", "1000000000", "--submit-quota", "1000000000", "--concurrency", "1000000000"];

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
function stats(xs: number[]): string {
  if (xs.length === 0) return "no samples";
  const s = sorted(xs);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
  return `p50 ${q(0.5).toFixed(2)} ms, p99 ${q(0.99).toFixed(2)} ms, max ${s.at(-1)!.toFixed(2)} ms (${s.length} requests)`;
}

// ------------------------------------------------------------------------ the simulator

/** The simulator's memory right after a full collection (bench/soak-server.ts). */
interface Memory {
  rss: number;
  heapUsed: number;
  /** The heap V8 holds, used or not. */
  heapTotal: number;
  /** Memory outside the heap: buffers. */
  external: number;
}

interface Server {
  base: string;
  child: ChildProcess;
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

async function simulator(args: string[]): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "bench/soak-server.ts", "--port", String(port), ...args], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if ((await call(base, "GET", "/_sim/clock")).status === 200) break; // else not listening yet
    if (Date.now() - started > 30_000) throw new Error("the simulator did not answer within 30 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    child,
    memory: () =>
      new Promise((resolve) => {
        child.once("message", (m) => resolve(m as Memory));
        child.send("memory");
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

// ------------------------------------------------------------------------- HTTP client

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

interface Answer {
  status: number;
  text: string;
  ms: number;
}

function call(base: string, method: string, path: string, options: { key?: string; body?: unknown; raw?: Uint8Array; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let payload: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  if (payload !== undefined) headers["content-length"] ??= String(typeof payload === "string" ? Buffer.byteLength(payload) : payload.length);
  const url = new URL(path, base);
  const start = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - start }));
      res.on("error", (error) => resolve(lost(error, start)));
    });
    req.on("error", (error) => resolve(lost(error, start)));
    req.end(payload);
  });
}

/** A request that got no answer (status 0): counted as a failure by `check`, never thrown. */
function lost(error: Error & { code?: string }, start: number): Answer {
  return { status: 0, text: error.code ?? error.message, ms: performance.now() - start };
}

const json = (a: Answer) => JSON.parse(a.text);

// ---------------------------------------------------------------------------- the mix

interface Tally {
  requests: number;
  failures: Map<string, number>;
}

const tally: Tally = { requests: 0, failures: new Map() };

/** Counts an answer; a status the mix does not expect is a failure, by route and status. */
function check(a: Answer, route: string, ok: readonly number[]): Answer {
  tally.requests++;
  if (!ok.includes(a.status)) {
    const key = `${route} ${a.status}`;
    tally.failures.set(key, (tally.failures.get(key) ?? 0) + 1);
  }
  return a;
}

async function worker(base: string, n: number, until: number): Promise<void> {
  const key = KEYS[n % KEYS.length]!;
  const recent: string[] = [];
  const done: string[] = [];
  for (let round = 0; Date.now() < until; round++) {
    const get = (path: string, route: string) => call(base, "GET", path, { key }).then((a) => check(a, route, [200]));
    const marker = round % 20 === 3 ? " [sim:late]" : round % 20 === 7 ? " [sim:hold]" : round % 10 === 5 ? " [sim:fail]" : "";
    const body = round % 2 === 0 ? { type: "video", model: "video-model-a", prompt: `A lighthouse at dusk, take ${round}${marker}`, duration: 5 } : { type: "image", model: "image-model-a", prompt: `A fox in the snow, take ${round}${marker}` };
    const idempotencyKey = `soak-${n}-${round}-${randomUUID()}`;
    const submitted = check(await call(base, "POST", "/v1/generations", { key, body, headers: { "idempotency-key": idempotencyKey } }), "submit", [202]);
    const id = submitted.status === 202 ? (json(submitted).id as string) : undefined;
    if (round % 4 === 0) check(await call(base, "POST", "/v1/generations", { key, body, headers: { "idempotency-key": idempotencyKey } }), "replay", [202]);
    if (id) {
      recent.push(id);
      if (recent.length > 10) done.push(recent.shift()!);
      if (done.length > 50) done.shift();
      await get(`/v1/generations/${id}`, "read");
    }
    check(await call(base, "POST", "/v1/generations/status", { key, body: { ids: recent } }), "status", [200]);
    for (const path of ["/v1/generations", "/v1/billing/transactions"]) {
      const first = await get(`${path}?limit=20`, path);
      const cursor = first.status === 200 ? json(first).next_cursor : null;
      if (cursor) await get(`${path}?limit=20&cursor=${encodeURIComponent(cursor)}`, `${path} (page 2)`);
    }
    await get("/v1/me", "me");
    await get("/v1/models", "models");
    check(await call(base, "POST", "/v1/pricing/estimate", { key, body }), "estimate", [200]);
    await get("/v1/library/assets?limit=20", "assets");
    if (round % 2 === 1) await get("/v1/library/folders", "folders");
    if (round % 25 === 24) {
      const ticket = check(await call(base, "POST", "/v1/uploads", { key, body: { kind: "image", content_type: "image/png", content_length: PNG.length } }), "upload ticket", [200]);
      if (ticket.status === 200) {
        const t = json(ticket) as { url: string; headers: Record<string, string> };
        check(await call(base, "PUT", new URL(t.url).pathname + new URL(t.url).search, { raw: PNG, headers: t.headers }), "storage PUT", [200]);
      }
      check(await call(base, "POST", "/v1/support/messages", { key, body: { text: `Question ${round}`, client_msg_id: randomUUID() } }), "support send", [201]);
      await get("/v1/support/messages", "support thread");
      // A report on an older generation: 201, or 422 when it was refunded (nothing owed).
      if (done.length > 0) check(await call(base, "POST", `/v1/generations/${done[0]}/report`, { key, body: { text: "Not what I asked for" } }), "report", [201, 404, 422]);
    }
  }
}

/** An event stream that resumes with Last-Event-ID every `everyMs`, counting frames until `until`. */
async function stream(base: string, key: string, until: number, everyMs: number, counts: { frames: number; resets: number }): Promise<void> {
  let last: string | undefined;
  while (Date.now() < until) {
    await new Promise<void>((resolve) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (last) headers["last-event-id"] = last;
      const req = request(new URL("/v1/events", base), { headers }, (res: IncomingMessage) => {
        tally.requests++;
        let buffer = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (.*)$/m.exec(frame)?.[1];
            if (id) last = id;
            if (frame.startsWith("event: reset")) counts.resets++;
            else if (frame.startsWith("event:")) counts.frames++;
          }
        });
        res.on("close", () => resolve());
      });
      req.on("error", () => resolve());
      req.end();
      setTimeout(() => req.destroy(), Math.min(everyMs, Math.max(0, until - Date.now())));
    });
  }
}

// ---------------------------------------------------------------------------- the parts

/** GET /v1/me one after another while `during` runs (or for `ms` without it). */
async function probe(base: string, during: Promise<unknown> | number): Promise<number[]> {
  const latencies: number[] = [];
  let over = false;
  if (typeof during === "number") setTimeout(() => (over = true), during);
  else void during.finally(() => (over = true));
  while (!over) latencies.push((await call(base, "GET", "/v1/me", { key: KEYS[0] })).ms);
  return latencies;
}

async function exportWithProbe(base: string, label: string): Promise<void> {
  const start = performance.now();
  const exporting = call(base, "GET", "/_sim/scenario");
  const during = await probe(base, exporting);
  const exported = await exporting;
  const ms = performance.now() - start;
  const file = JSON.parse(exported.text) as { generations: unknown[] };
  const quiet = await probe(base, Math.max(1_000, Math.min(ms, 10_000)));
  console.log(`  ${label}: GET /_sim/scenario ${exported.status}, ${file.generations.length.toLocaleString("en")} generations, ${(exported.text.length / 1e6).toFixed(1)} MB in ${(ms / 1000).toFixed(2)} s`);
  console.log(`    GET /v1/me during the export: ${stats(during)}`);
  console.log(`    GET /v1/me with no export:    ${stats(quiet)}`);
}

async function soak(): Promise<Server> {
  const sim = await simulator([...UNLIMITED, ...SIM_ARGS]);
  for (const account of ["acc_demo", "acc_other"]) await call(sim.base, "PATCH", `/_sim/accounts/${account}`, { body: { balance_cc: 1e15 } });
  console.log(`\n1. Memory over ${SECONDS} s: ${WORKERS} loops, two accounts, four event streams, ${SIM_ARGS.length > 0 ? SIM_ARGS.join(" ") : "default retention"}`);
  console.log("   elapsed | requests | req/s (interval) |  RSS MiB | heap after GC MiB | heap held MiB | outside heap MiB | failures so far");
  const start = Date.now();
  const until = start + SECONDS * 1000;
  const streamCounts = { frames: 0, resets: 0 };
  const running = [
    ...Array.from({ length: WORKERS }, (_, n) => worker(sim.base, n, until)),
    ...Array.from({ length: 4 }, (_, n) => stream(sim.base, KEYS[n % KEYS.length]!, until, 20_000, streamCounts)),
  ];
  let before = 0;
  const sample = async () => {
    const m = await sim.memory();
    const elapsed = (Date.now() - start) / 1000;
    const failures = [...tally.failures.values()].reduce((a, b) => a + b, 0);
    console.log(`   ${elapsed.toFixed(0).padStart(7)} | ${String(tally.requests).padStart(8)} | ${((tally.requests - before) / SAMPLE_SECONDS).toFixed(0).padStart(16)} | ${mib(m.rss).padStart(8)} | ${mib(m.heapUsed).padStart(17)} | ${mib(m.heapTotal).padStart(13)} | ${mib(m.external).padStart(16)} | ${failures}`);
    before = tally.requests;
  };
  await sample();
  const timer = setInterval(() => void sample(), SAMPLE_SECONDS * 1000);
  await Promise.all(running);
  clearInterval(timer);
  await sample();
  console.log(`   ${tally.requests.toLocaleString("en")} requests in ${((Date.now() - start) / 1000).toFixed(0)} s; stream frames ${streamCounts.frames.toLocaleString("en")}, resets ${streamCounts.resets}`);
  console.log(`   unexpected answers: ${tally.failures.size === 0 ? "none" : [...tally.failures].map(([k, v]) => `${k} x${v}`).join(", ")}`);
  return sim;
}

async function reads(): Promise<void> {
  console.log(`\n3. Read costs at growing sizes (clock frozen, retention raised; 20 per page; ${SIZES.join(", ")} generations)`);
  const sim = await simulator([...UNLIMITED, "--clock-speed", "0", "--retain-generations", "10000000", "--retain-ledger-rows", "10000000", "--retain-events", "10000000"]);
  await call(sim.base, "PATCH", "/_sim/accounts/acc_demo", { body: { balance_cc: 1e15 } });
  const key = KEYS[0]!;
  let made = 0;
  for (const size of SIZES) {
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (made < size) {
        made++;
        const a = await call(sim.base, "POST", "/v1/generations", { key, body: { type: "image", model: "image-model-a", prompt: "a fox" }, headers: { "idempotency-key": randomUUID() } });
        if (a.status !== 202) throw new Error(`a fill submit answered ${a.status}: ${a.text}`);
      }
    }));
    const deep = async (path: string) => {
      let cursor = "";
      for (let i = 0; i < 50; i++) cursor = json(await call(sim.base, "GET", `${path}?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key })).next_cursor ?? cursor;
      return `${path}?limit=20&cursor=${encodeURIComponent(cursor)}`;
    };
    const paths: [string, string][] = [
      ["ledger, first page", "/v1/billing/transactions?limit=20"],
      ["ledger, 1,000 rows deep", await deep("/v1/billing/transactions")],
      ["generations, first page", "/v1/generations?limit=20"],
      ["generations, 1,000 deep", await deep("/v1/generations")],
      ["library assets", "/v1/library/assets?limit=20"],
    ];
    console.log(`  ${size.toLocaleString("en")} generations, ${(size + 1).toLocaleString("en")} ledger rows:`);
    for (const [label, path] of paths) {
      const ms: number[] = [];
      for (let i = 0; i < 50; i++) await call(sim.base, "GET", path, { key });
      for (let i = 0; i < 300; i++) ms.push((await call(sim.base, "GET", path, { key })).ms);
      console.log(`    ${label.padEnd(26)} ${stats(ms)}`);
    }
  }
  await exportWithProbe(sim.base, `the export at ${SIZES.at(-1)!.toLocaleString("en")} generations`);
  await sim.stop();
}

async function main(): Promise<void> {
  console.log(`Soak benchmark, Node ${process.version}; load average before: ${load()}`);
  if (!ONLY || ONLY === "soak" || ONLY === "export") {
    const sim = await soak();
    console.log("\n2. An ordinary request during an export of the soaked state");
    await exportWithProbe(sim.base, "after the soak");
    const m = await sim.memory();
    console.log(`   after the export: RSS ${mib(m.rss)} MiB, heap after GC ${mib(m.heapUsed)} MiB`);
    await sim.stop();
  }
  if (!ONLY || ONLY === "reads") await reads();
  console.log(`\nLoad average after: ${load()}`);
  agent.destroy();
}

await main();
