// Simulator benchmark (`npm run bench:simulator`). Prints figures; asserts nothing.
//
// In one run on this machine, servers side by side, each in its own process:
//   - the simulator (`tsx src/simulator/main.ts`, what `npm start` runs),
//   - (first answer only) the same simulator as the dev-tools package runs it, compiled:
//     `generation-hub mock` (packages/devtools; built here when its dist/ is missing),
//   - Prism mocking the same document (`prism mock generated/openapi.yaml`),
//   - a bare `node:http` server answering a constant of the same size as the simulator's
//     answer, head and body (the seed's headers: request id, Cache-Control, Vary, the
//     RateLimit pair or WWW-Authenticate, Location on a submit),
//   - for reference in the load rounds: the same bare server with a minimal head (Content-Type
//     and Content-Length only, as bare was measured until 2026-11-29), and Fastify set up as
//     the simulator's adapter was until it moved to `node:http` (same options, raw body
//     parser, catch-all route, answer written to Node's response) answering the same
//     constants: the ceiling of any simulator on that framework and machine.
// The machine may be shared: launches and load rounds interleave the servers and every
// figure is a median, so load from elsewhere hits them alike.
// 1. Time to first answer after launch (spawn -> first 200 of GET /v1/models).
// 2. Requests/s and p50/p99 latency at 16 connections (autocannon) for a validated
//    submit (a fresh Idempotency-Key per request, so each one is a new generation)
//    and for a list read (GET /v1/generations?limit=20).
//    Each figure also gives the server's CPU time per request (from /proc), which load
//    from elsewhere on the machine does not inflate the way it does wall-clock figures.
// 3. Event delivery latency with 1,000 open event streams: the time from a status
//    change (its `updated_at` on the simulator's clock, which runs at real speed
//    here) to its frame arriving at each stream; and submit-to-frame for creations.
// 4. The request journal's cost: the same load on the simulator with the journal off
//    (--journal-size 0), on (the default), and on with the inspector's page open (a client
//    reading its push channel, /_sim/ui/events), interleaved as in 2.
// 5. Sandboxes (BENCH_ONLY=sandboxes): in this process, the time to make one from the demo
//    scenario (Sandboxes.create, p50 and p99 of 500) and the heap one holds idle and after a
//    test's worth of traffic (after a full GC, 200 of them); over HTTP, the fixture's cost
//    per test (POST then DELETE /_sim/sandboxes); and the same load as in 2 on one simulator
//    sent to its default hub, and spread over 8 sandboxes (each request a sandbox's own key,
//    in turn), interleaved: requests/s and server CPU per request.
// 6. Where the time goes (BENCH_ONLY=profile, not part of a full run): the simulator and
//    the bare server under each load scenario of 2, one launch each with V8's sampling
//    profiler (`--cpu-prof`); the samples summed by the part of the code they fall in, per
//    request, side by side, so the simulator's time beyond bare shows where it goes; and
//    the simulator under 3's load, per event frame delivered (an event frame's fan-out).
// Targets: (issue 28, printed with each ratio) a list read >= 75% of the bare server's
// requests/s, a submit >= 65%, both >= 12x Prism's, p99 <= 5 ms at 16 connections; (issue 3)
// first answer within 1 s, event delivery p99 <= 50 ms; (issue 21) the journal costs <= 5%
// of the throughput, page open or not; (issue 26) a sandbox made in <= 5 ms at p50 in
// process, 8 busy sandboxes within 10% of one hub per request.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { connect, createServer, type Socket } from "node:net";
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { HubControl } from "../src/simulator/msw/control.ts";
import { Sandboxes } from "../src/simulator/sandboxes.ts";
import type { SimRequest } from "../src/simulator/pipeline/exchange.ts";

interface AutocannonResult {
  requests: { average: number; total: number };
  /** Bytes received: every answer's head and body. */
  throughput: { total: number };
  statusCodeStats?: Record<string, { count: number }>;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: { setupRequest?: (req: { headers: Record<string, string> }) => unknown }[];
}
const autocannon = createRequire(import.meta.url)("autocannon") as (o: AutocannonOptions) => Promise<AutocannonResult>;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LAUNCHES = Number(process.env.BENCH_LAUNCHES ?? 3);
const CONNECTIONS = 16;
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
/** BENCH_VERBOSE=1 prints every load round as it ends (to see what a median hides). */
const VERBOSE = process.env.BENCH_VERBOSE === "1";
const KEY = "ghk_demo_full";
const SUBMIT_BODY = JSON.stringify({ type: "video", model: "video-model-a", prompt: "A lighthouse at dusk, waves breaking, slow dolly-in", duration: 5 });
const UNLIMITED = "1000000000";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface Launched {
  name: string;
  base: string;
  child: ChildProcess;
  firstAnswerMs: number;
}

async function launch(name: string, command: string, args: string[], port: number, env: Record<string, string> = {}): Promise<Launched> {
  const start = performance.now();
  const child = spawn(command, args, { cwd: process.cwd(), env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const res = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - start > 30_000) throw new Error(`${name} did not answer within 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return { name, base, child, firstAnswerMs: performance.now() - start };
}

async function simulator(extra: string[] = [], name = "simulator", nodeFlags: string[] = []): Promise<Launched> {
  const port = await freePort();
  const launched = await launch(name, process.execPath, [...nodeFlags, "--import", "tsx", "src/simulator/main.ts", "--port", String(port), "--no-demo-data",
    "--key-quota", UNLIMITED, "--account-quota", UNLIMITED, "--submit-quota", UNLIMITED, "--concurrency", UNLIMITED, ...extra], port);
  // Enough credits for every submit of the run (the control interface, outside /v1).
  for (const account of ["acc_demo", "acc_other"]) {
    await fetch(`${launched.base}/_sim/accounts/${account}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ balance_cc: 1e15 }) });
  }
  return launched;
}

/** `generation-hub mock`: the simulator compiled to JavaScript, as the dev-tools package ships it. */
async function packagedMock(): Promise<Launched> {
  if (!existsSync("packages/devtools/dist/src/simulator/cli.js")) execFileSync("npm", ["run", "build:devtools"], { stdio: "ignore" });
  const port = await freePort();
  return launch("generation-hub mock (packaged, compiled)", process.execPath, ["packages/devtools/bin/generation-hub.js", "mock", "--port", String(port), "--no-demo-data"], port);
}

async function prism(): Promise<Launched> {
  const port = await freePort();
  return launch("prism mock", process.execPath, ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "generated/openapi.yaml", "-h", "127.0.0.1", "-p", String(port), "-v", "error"], port);
}

// The bare server answers constants of the same size as the simulator's answers (one
// generation record for a submit, a page of twenty for a list read, under the head the seed
// asks of every answer), so the comparison measures the work per request, not the bytes on
// the wire (the tables print each server's bytes per answer).
const RECORD = { id: "gen_01M81HZQP1V9X6SHH0GPQ3F3CQ", type: "video", status: "QUEUED", model: "video-model-a", title: "A lighthouse at dusk, waves breaking, slow dolly-in", prompt: "A lighthouse at dusk, waves breaking, slow dolly-in", created_at: "2026-11-22T11:59:10.017Z", updated_at: "2026-11-22T11:59:10.017Z", output_urls: [], cost_cc: 500 };
// A list read pages through finished generations: in the rounds the simulator's list read
// comes 12 s after its submits (the other three servers' submit rounds), and a video is
// DONE 10 s after its submit, with the address of its output.
const DONE_RECORD = { ...RECORD, status: "DONE", updated_at: "2026-11-22T11:59:20.017Z", output_urls: ["http://127.0.0.1:40000/v1/generations/gen_01M81HZQP1V9X6SHH0GPQ3F3CQ/outputs/video/0"] };
// A refusal: an envelope of the simulator's size, chosen by what the request shows cheaply
// (no Authorization: 401; a submit's body shorter than a valid one: 400).
const REFUSAL = { error: { code: "invalid_request", message: "The request body does not match the schema.", request_id: "req_0000000000000000", details: [{ field: "prompt", reason: "required", message: "prompt is required" }] } };
const CONSTANTS = `
const record = ${JSON.stringify(JSON.stringify(RECORD))};
const page = JSON.stringify({ data: Array(20).fill(${JSON.stringify(DONE_RECORD)}), next_cursor: "MTc5NTMyOTY4NjM2NzpnZW5fMDFNODBaU1lUWkI4V1MwR0ZFOThaQkFCRkc.0oetdx7" });
const refusal = ${JSON.stringify(JSON.stringify(REFUSAL))};
function answerOf(method, authorization, length) {
  if (authorization === undefined) return [401, refusal];
  if (method === "POST") return length < ${SUBMIT_BODY.length} ? [400, refusal] : [202, record];
  return [200, page];
}
// The simulator's head, in its order: a fresh request id and RateLimit remainder each time.
let served = 0;
function headOf(status, body) {
  served++;
  const head = { "x-request-id": "req_" + served.toString(36).padStart(16, "0"), "cache-control": "private, no-store", vary: "Authorization, Cookie, Origin" };
  if (status === 401) head["www-authenticate"] = 'Bearer resource_metadata="http://127.0.0.1:40000/.well-known/oauth-protected-resource/v1"';
  else {
    head.ratelimit = '"default";r=' + (1e9 - served) + ";t=60";
    head["ratelimit-policy"] = '"default";q=1000000000;w=60';
  }
  head["content-type"] = "application/json; charset=utf-8";
  if (status === 202) head.location = "/v1/generations/gen_01M81HZQP1V9X6SHH0GPQ3F3CQ";
  head["content-length"] = String(Buffer.byteLength(body));
  return head;
}
`;
const BARE = `
const http = require("node:http");
${CONSTANTS}
const minimal = process.env.MINIMAL_HEAD === "1";
http.createServer((req, res) => {
  req.resume();
  let length = 0;
  req.on("data", (chunk) => (length += chunk.length));
  req.on("end", () => {
    const [status, body] = answerOf(req.method, req.headers.authorization, length);
    res.writeHead(status, minimal ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : headOf(status, body));
    res.end(body);
  });
}).listen(Number(process.env.PORT), "127.0.0.1");
// Exits on SIGTERM rather than dying of it, so a profiled launch writes its profile.
process.on("SIGTERM", () => process.exit(0));
`;

const BARE_SERVER = "bare node:http";
const MINIMAL_HEAD = "bare node:http, minimal head";

/** `minimalHead`: Content-Type and Content-Length only, the reference bare was until 2026-11-29 (for comparison). */
async function bare(nodeFlags: string[] = [], minimalHead = false): Promise<Launched> {
  const port = await freePort();
  return launch(minimalHead ? MINIMAL_HEAD : BARE_SERVER, process.execPath, [...nodeFlags, "-e", BARE], port, { PORT: String(port), MINIMAL_HEAD: minimalHead ? "1" : "0" });
}

// The framework's ceiling: the Fastify setup the simulator's adapter had until it moved to
// node:http (08296a2), with nothing behind it. The bare server's answers and heads.
const FASTIFY = `
const Fastify = require("fastify");
${CONSTANTS}
const app = Fastify({ logger: false, bodyLimit: 1048576, forceCloseConnections: true, exposeHeadRoutes: false, return503OnClosing: false,
  requestTimeout: 30000, routerOptions: { maxParamLength: 1 << 20 }, http: { maxHeaderSize: 16384 } });
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1048576 }, (_req, body, done) => done(null, body));
function serve(request, reply) {
  reply.hijack();
  const [status, body] = answerOf(request.raw.method, request.raw.headers.authorization, request.body ? request.body.length : 0);
  reply.raw.writeHead(status, headOf(status, body));
  reply.raw.end(body);
}
app.route({ method: app.supportedMethods, url: "/", handler: serve });
app.route({ method: app.supportedMethods, url: "/*", handler: serve });
app.listen({ host: "127.0.0.1", port: Number(process.env.PORT) });
`;

async function fastifyFloor(): Promise<Launched> {
  const port = await freePort();
  return launch("fastify constants", process.execPath, ["-e", FASTIFY], port, { PORT: String(port) });
}

function stop(l: Launched): Promise<void> {
  return new Promise((resolve) => {
    l.child.once("exit", () => resolve());
    l.child.kill("SIGTERM");
  });
}

let counter = 0;
const scenarios: Record<string, (base: string) => AutocannonOptions> = {
  "validated submit (POST /v1/generations)": (base) => ({
    url: `${base}/v1/generations`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: SUBMIT_BODY,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": `bench-${process.pid}-${++counter}` } }) }],
  }),
  "list read (GET /v1/generations?limit=20)": (base) => ({
    url: `${base}/v1/generations?limit=20`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${KEY}` },
  }),
};

// Refused requests, which a frontend's error paths hit often: no key (401) and a submit
// whose body carries a field the schema does not have (400; requests are closed). Load rounds of the servers side by side only (the
// sandboxes' rounds send every request with a sandbox's key).
const BAD_SUBMIT = JSON.stringify({ type: "video", model: "video-model-a", prompt: "x", colour: 1 });
const refusals: Record<string, (base: string) => AutocannonOptions> = {
  "refused, no key (GET /v1/generations, 401)": (base) => ({
    url: `${base}/v1/generations?limit=20`,
    connections: CONNECTIONS,
    duration: SECONDS,
  }),
  "refused, invalid submit (POST /v1/generations, 400)": (base) => ({
    url: `${base}/v1/generations`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": "bench-refused" },
    body: BAD_SUBMIT,
  }),
};
/** The status each refusal scenario expects: any other counts as an error. */
const REFUSED_STATUS: Record<string, number> = { "refused, no key (GET /v1/generations, 401)": 401, "refused, invalid submit (POST /v1/generations, 400)": 400 };

/** Answers not as the scenario expects: non-2xx (a refusal scenario: not its status), errors, timeouts. */
function badAnswers(scenario: string, r: AutocannonResult): number {
  const expected = REFUSED_STATUS[scenario];
  if (expected === undefined) return r.non2xx + r.errors + r.timeouts;
  return r.requests.total - (r.statusCodeStats?.[String(expected)]?.count ?? 0) + r.errors + r.timeouts;
}

interface Row {
  scenario: string;
  server: string;
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** Server CPU (user + system) per request, microseconds: robust to load from elsewhere. */
  cpu: number;
  /** Bytes per answer, head and body: shows the constants are of the simulator's size (the heads differ). */
  bytes: number;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Time to first answer: each server launched LAUNCHES times, interleaved; the median. */
async function firstAnswers(): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < LAUNCHES; i++) {
    for (const make of [simulator, packagedMock, prism, bare]) {
      const server = await make();
      (samples[server.name] ??= []).push(server.firstAnswerMs);
      await stop(server);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, median(xs)]));
}

/** One load round's figures: `bad` answers, `cpu` the server's µs per request. */
function rowOf(scenario: string, server: string, r: AutocannonResult, bad: number, cpu: number): Row {
  return { scenario, server, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad, cpu, bytes: r.throughput.total / Math.max(1, r.requests.total) };
}

/** Each scenario and server's rounds as one row: the medians (errors summed). */
function medians(samples: Map<string, Row[]>): Row[] {
  return [...samples.values()].map((rs) => ({
    scenario: rs[0]!.scenario,
    server: rs[0]!.server,
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    bad: rs.reduce((n, r) => n + r.bad, 0),
    cpu: median(rs.map((r) => r.cpu)),
    bytes: median(rs.map((r) => r.bytes)),
  }));
}

/**
 * The servers run side by side; rounds interleave them, so load from elsewhere on the
 * machine hits them alike. Each figure is the median over the rounds. Stops the servers.
 */
async function rounds(servers: Launched[], beforeStop = () => {}, set = scenarios): Promise<Row[]> {
  const samples = new Map<string, Row[]>();
  try {
    for (const server of servers) for (const options of Object.values(set)) await autocannon({ ...options(server.base), duration: 1 }); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [scenario, options] of Object.entries(set)) {
        for (const server of servers) {
          const before = cpuSeconds(server.child.pid);
          const r = await autocannon(options(server.base));
          const cpu = ((cpuSeconds(server.child.pid) - before) * 1e6) / Math.max(1, r.requests.average * SECONDS);
          const key = `${scenario}|${server.name}`;
          if (!samples.has(key)) samples.set(key, []);
          samples.get(key)!.push(rowOf(scenario, server.name, r, badAnswers(scenario, r), cpu));
          if (VERBOSE) console.log(`round ${round + 1} | ${scenario} | ${server.name} | ${Math.round(r.requests.average)} req/s | p99 ${r.latency.p99} ms | ${Math.round(cpu)} us CPU/request | load ${loadavg()[0]!.toFixed(2)}`);
        }
      }
    }
  } finally {
    beforeStop();
    for (const server of servers) await stop(server);
  }
  return medians(samples);
}

async function throughput(): Promise<Row[]> {
  return rounds([await simulator(), await prism(), await bare(), await bare([], true), await fastifyFloor()], undefined, { ...scenarios, ...refusals });
}

const JOURNAL_OFF = "simulator, journal off";
const JOURNAL_ON = "simulator, journal on";
const PAGE_OPEN = "simulator, journal on, page open";

/** A client of the inspector's push channel, as the open page is: reads every frame until stopped. */
function inspectorPage(base: string): { frames: () => number; close: () => void } {
  const controller = new AbortController();
  let frames = 0;
  (async () => {
    const res = await fetch(`${base}/_sim/ui/events`, { signal: controller.signal });
    if (res.status !== 200) throw new Error(`the push channel answered ${res.status}`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) frames += read.value.split("\n\n").length - 1;
  })().catch((error: Error) => {
    if (error.name !== "AbortError") console.log(`(the page's push channel failed: ${error.message})`);
  });
  return { frames: () => frames, close: () => controller.abort() };
}

/** The journal's cost: the same load with the journal off, on, and on with the page open. */
async function journalCost(): Promise<{ rows: Row[]; frames: number }> {
  const servers = [await simulator(["--journal-size", "0"], JOURNAL_OFF), await simulator([], JOURNAL_ON), await simulator([], PAGE_OPEN)];
  const page = inspectorPage(servers[2]!.base);
  const rows = await rounds(servers, () => page.close());
  return { rows, frames: page.frames() };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The monotonic clock in microseconds, as a profile's sample times are (any process reads the same clock). */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * `nodeFlags` launch the simulator under the profiler (BENCH_ONLY=profile); `from` and `to`
 * bound the submits and their frames' delivery, the streams' opening left out.
 */
async function eventDelivery(nodeFlags: string[] = []): Promise<{ delivery: number[]; submitToFrame: number[]; frames: number; from: number; to: number }> {
  const server = await simulator(["--max-streams-per-key", String(STREAMS * 2)], "simulator", nodeFlags);
  const key = "ghk_demo_other";
  const { port } = new URL(server.base);
  const delivery: number[] = [];
  const submitToFrame: number[] = [];
  // Submits are sent one at a time, so the n-th creation frame a stream sees is the n-th submit.
  const sentAt: number[] = [];
  const sockets: Socket[] = [];
  let frames = 0;
  // Raw sockets and cheap scans: the client shares the machine with the server, and its
  // own parsing would otherwise be most of what is measured.
  await Promise.all(
    Array.from({ length: STREAMS }, () =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1");
        sockets.push(socket);
        let opened = false;
        let rest = "";
        let created = 0;
        socket.on("data", (chunk: Buffer) => {
          const now = Date.now();
          let text = rest + chunk.toString("latin1");
          if (!opened) {
            if (!text.startsWith("HTTP/1.1 200")) return reject(new Error(`stream refused: ${text.slice(0, 40)}`));
            opened = true;
            resolve();
          }
          let end: number;
          while ((end = text.indexOf("\n\n")) >= 0) {
            const frame = text.slice(0, end);
            text = text.slice(end + 2);
            const at = frame.indexOf('"updated_at":"');
            if (at < 0) continue;
            frames++;
            delivery.push(now - Date.parse(frame.slice(at + 14, at + 38)));
            if (frame.includes('"status":"QUEUED"')) {
              const sent = sentAt[created++];
              if (sent !== undefined) submitToFrame.push(now - sent);
            }
          }
          rest = text;
        });
        socket.on("error", reject);
        socket.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      }),
    ),
  );
  // Thirty generations, one every 100 ms; each emits QUEUED, PENDING, RUNNING, DONE.
  const submits = 30;
  const from = monotonicUs();
  for (let i = 0; i < submits; i++) {
    sentAt.push(Date.now());
    const res = await fetch(`${server.base}/v1/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": `stream-${i}` },
      body: JSON.stringify({ type: "image", model: "image-model-b", prompt: `frame ${i}` }),
    });
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 100));
  }
  const expected = submits * 4 * STREAMS;
  const deadline = Date.now() + 30_000;
  while (frames < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const to = monotonicUs();
  for (const socket of sockets) socket.destroy();
  await stop(server);
  if (frames < expected) console.log(`(only ${frames} of ${expected} frames arrived)`);
  return { delivery, submitToFrame, frames, from, to };
}

const ONE_HUB = "one hub (the default, a demo key)";
const EIGHT = "8 sandboxes (each request a sandbox's key, in turn)";

/** The same load on one simulator: to its default hub, and spread over 8 sandboxes; interleaved, medians. */
async function sandboxLoad(): Promise<Row[]> {
  const server = await simulator();
  const keys: string[] = [];
  for (let i = 0; i < 8; i++) {
    const made = (await (await fetch(`${server.base}/_sim/sandboxes`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { id: string; api_key: string };
    await fetch(`${server.base}/sandboxes/${made.id}/_sim/accounts/acc_demo`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ balance_cc: 1e15 }) });
    keys.push(made.api_key);
  }
  let turn = 0;
  // Both variants set each request's key as it is sent, so the load generator (on the same
  // two cores) does the same work per request for either: only the hubs answering differ.
  const keyedBy = (given: string[]) => (options: AutocannonOptions): AutocannonOptions => ({
    ...options,
    requests: [{
      setupRequest: (req) => {
        const prepared = (options.requests?.[0]?.setupRequest?.(req) ?? req) as { headers: Record<string, string> };
        return { ...prepared, headers: { ...prepared.headers, authorization: `Bearer ${given[turn++ % given.length]}` } };
      },
    }],
  });
  const variants: [string, (o: AutocannonOptions) => AutocannonOptions][] = [[ONE_HUB, keyedBy([KEY])], [EIGHT, keyedBy(keys)]];
  const samples = new Map<string, Row[]>();
  try {
    for (const [, vary] of variants) for (const options of Object.values(scenarios)) await autocannon({ ...vary(options(server.base)), duration: 1 }); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [scenario, options] of Object.entries(scenarios)) {
        for (const [name, vary] of variants) {
          const before = cpuSeconds(server.child.pid);
          const r = await autocannon(vary(options(server.base)));
          const cpu = ((cpuSeconds(server.child.pid) - before) * 1e6) / Math.max(1, r.requests.average * SECONDS);
          const key = `${scenario}|${name}`;
          if (!samples.has(key)) samples.set(key, []);
          samples.get(key)!.push(rowOf(scenario, name, r, r.non2xx + r.errors + r.timeouts, cpu));
          if (VERBOSE) console.log(`round ${round + 1} | ${scenario} | ${name} | ${Math.round(r.requests.average)} req/s | ${Math.round(cpu)} us CPU/request | load ${loadavg()[0]!.toFixed(2)}`);
        }
      }
    }
  } finally {
    await stop(server);
  }
  return medians(samples);
}

/** A full garbage collection (this process was not started with --expose-gc: V8 is told here). */
function collect(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Making sandboxes in this process, and what one holds, idle and after a test's worth of traffic. */
async function sandboxCosts(): Promise<{ create: number[]; idleBytes: number; usedBytes: number; leftBytes: number; httpMs: number[] }> {
  const gc = collect();
  const front = new Sandboxes({ clockSpeed: 0 }, { max: 100_000 });
  const create: number[] = [];
  for (let i = 0; i < 520; i++) {
    const started = performance.now();
    const made = front.create(undefined);
    const took = performance.now() - started;
    if (i >= 20) create.push(took); // the first ones compile the code
    if ("id" in made) front.remove(made.id);
  }
  const count = 200;
  const heap = () => {
    gc();
    return process.memoryUsage().heapUsed;
  };
  // A test's worth of traffic in each: 20 submits and 20 list reads, each recorded by its journal.
  const request = (id: string, method: string, url: string, body?: string): SimRequest => ({
    method,
    url: `/sandboxes/${id}${url}`,
    headers: { authorization: `Bearer ghk_demo_full`, ...(body ? { "content-type": "application/json", "idempotency-key": `${id}-${++counter}` } : {}) },
    body: body === undefined ? undefined : new TextEncoder().encode(body),
    baseUrl: "http://127.0.0.1:4010",
  });
  /** Makes `count` sandboxes, sends each its traffic, deletes them: the heap at each step. */
  const cycle = () => {
    const start = heap();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const made = front.create(undefined);
      if ("id" in made) ids.push(made.id);
    }
    const idle = heap();
    for (const id of ids) {
      for (let i = 0; i < 20; i++) {
        front.handle(request(id, "POST", "/v1/generations", SUBMIT_BODY));
        front.handle(request(id, "GET", "/v1/generations?limit=20"));
      }
    }
    const used = heap();
    for (const id of ids) front.remove(id);
    return { start, idle, used, end: heap() };
  };
  // The first cycle compiles what the traffic needs (the request validators, ...): the second is measured.
  const first = cycle();
  const second = cycle();
  const [idleBytes, usedBytes, leftBytes] = [(second.idle - second.start) / count, (second.used - second.start) / count, second.end - first.end];
  front.shutdown();
  // Over HTTP, what a per-test fixture costs: make one, then delete it.
  const server = await simulator();
  const httpMs: number[] = [];
  try {
    for (let i = 0; i < 120; i++) {
      const started = performance.now();
      const made = (await (await fetch(`${server.base}/_sim/sandboxes`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as { id: string };
      await (await fetch(`${server.base}/_sim/sandboxes/${made.id}`, { method: "DELETE" })).arrayBuffer();
      if (i >= 20) httpMs.push(performance.now() - started);
    }
  } finally {
    await stop(server);
  }
  return { create, idleBytes, usedBytes, leftBytes, httpMs };
}

/** A `.cpuprofile` (V8's sampling profiler, Node's `--cpu-prof`): the call tree and its samples. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  /** Microseconds on the machine's monotonic clock (what `process.hrtime` reads in any process). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The part of the code a sampled frame is in, for "where the time goes": the simulator's
 * own code by folder (its HTTP adapter, the request pipeline, the handlers, the domain and
 * state), the request schemas' compiled validators (Ajv's generated functions carry no
 * file), Node's HTTP and streams, the garbage collector, and V8's own work.
 */
function partOf(frame: { functionName: string; url: string }): string {
  const { functionName: fn, url } = frame;
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(program)") return "V8 and native code outside JavaScript (parsing, compiling, the event loop)";
  if (url === "" && /^write(v|Buffer|Utf8String|Latin1String)$/.test(fn)) return "socket writes (the system call; a bare server pays it too)";
  const own = /\/src\/simulator\/([^/]+)(?:\/([^/]+))?/.exec(url);
  if (own) return own[2] ? `simulator: ${own[1]}/` : `simulator: ${own[1]}`;
  if (/\/src\/contract\//.test(url)) return "contract (schemas, validators' set-up)";
  if (url === "" && /^validate\d*$/.test(fn)) return "request validation (compiled JSON Schema)";
  if (/^node:(internal\/)?(_?http|https|net|stream|internal\/streams|internal\/http)/.test(url) || /^node:_http/.test(url)) return "Node's HTTP, net and streams";
  if (url.startsWith("node:")) return "Node, other";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package: ${pkg[1]}`;
  return "V8 built-ins (regular expressions, text decoding, property set-up)";
}

/**
 * Each part's share of the samples taken within [from, to] (microseconds on the monotonic
 * clock: the measured load, not the launch nor the warm-up), idle left out, per request.
 */
function timeByPart(p: CpuProfile, requests: number, from: number, to: number): { part: string; us: number }[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const sums = new Map<string, number>();
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    const node = byId.get(p.samples[i]!)!;
    if (at < from || at > to || node.callFrame.functionName === "(idle)") continue;
    const part = partOf(node.callFrame);
    sums.set(part, (sums.get(part) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  return [...sums].map(([part, us]) => ({ part, us: us / requests })).sort((a, b) => b.us - a.us);
}

/** What a profiled run measured: how many requests (or frames) within which window of the monotonic clock. */
interface Measured {
  count: number;
  from: number;
  to: number;
}

/** One run with the server's node flags for the profiler, ending with the server stopped: the time by part, per request (or frame). */
async function profiled(run: (nodeFlags: string[]) => Promise<Measured>): Promise<{ parts: Map<string, number>; count: number }> {
  const { mkdtempSync, readdirSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "hub-profile-"));
  const { count, from, to } = await run(["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const parts = timeByPart(JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile, count, from, to);
  rmSync(dir, { recursive: true, force: true });
  return { parts: new Map(parts.map((p) => [p.part, p.us])), count };
}

/** A scenario's load (as in the rounds) on a server launched with `nodeFlags`, which is then stopped. */
async function underLoad(launch: (nodeFlags: string[]) => Promise<Launched>, options: (base: string) => AutocannonOptions, nodeFlags: string[], settle?: (server: Launched) => Promise<unknown>): Promise<Measured> {
  const server = await launch(nodeFlags);
  try {
    // Warm-up outside the window, as in the rounds: the submits first, then (`settle`) the
    // time they have in the rounds to finish, so a list read pages through generations as
    // it does there.
    for (const warm of Object.values(scenarios)) await autocannon({ ...warm(server.base), duration: 1 });
    await settle?.(server);
    await autocannon({ ...options(server.base), duration: 1 });
    const from = monotonicUs();
    const count = (await autocannon(options(server.base))).requests.total;
    return { count, from, to: monotonicUs() };
  } finally {
    await stop(server);
  }
}

/**
 * BENCH_ONLY=profile: per scenario, the simulator and the bare server each launched once
 * under the profiler with the same load; the time by part, side by side, so the gap to
 * bare shows where it is.
 */
async function profile(): Promise<void> {
  const total = (m: Map<string, number>) => [...m.values()].reduce((n, us) => n + us, 0);
  for (const [scenario, options] of Object.entries({ ...scenarios, ...refusals })) {
    const sim = await profiled((flags) => underLoad((f) => simulator([], "simulator (profiled)", f), options, flags, (l) => HubControl.overHttp(l.base).advance(60)));
    const base = await profiled((flags) => underLoad(bare, options, flags));
    const simTotal = total(sim.parts);
    console.log(`\nWhere the time goes: ${scenario}, ${fmt(sim.count)} requests to the simulator and ${fmt(base.count)} to bare in ${SECONDS} s each under the profiler (load ${loadavg()[0]!.toFixed(2)}), sampled CPU per request: simulator ${fmt(simTotal, 1)} us, bare ${fmt(total(base.parts), 1)} us`);
    console.log("| Part | simulator us/request | share | bare us/request | simulator beyond bare |");
    console.log("|---|---:|---:|---:|---:|");
    const rows = [...new Set([...sim.parts.keys(), ...base.parts.keys()])].map((part) => ({ part, s: sim.parts.get(part) ?? 0, b: base.parts.get(part) ?? 0 }));
    for (const r of rows.sort((x, y) => y.s - x.s)) {
      if (Math.max(r.s, r.b) / simTotal >= 0.01) console.log(`| ${r.part} | ${fmt(r.s, 1)} | ${fmt((100 * r.s) / simTotal)}% | ${fmt(r.b, 1)} | ${fmt(r.s - r.b, 1)} |`);
    }
  }
  // An event frame's fan-out: the events part's load (no bare server streams events).
  const fanOut = await profiled(async (flags) => {
    const run = await eventDelivery(flags);
    return { count: run.frames, from: run.from, to: run.to };
  });
  const fanTotal = total(fanOut.parts);
  console.log(`\nWhere the time goes: an event frame's fan-out, ${fmt(fanOut.count)} frames to ${fmt(STREAMS)} open streams (30 generations, 4 status changes each) under the profiler (load ${loadavg()[0]!.toFixed(2)}), sampled CPU per frame delivered: ${fmt(fanTotal, 2)} us`);
  console.log("| Part | us/frame | share |");
  console.log("|---|---:|---:|");
  for (const [part, us] of [...fanOut.parts].sort((x, y) => y[1] - x[1])) {
    if (us / fanTotal >= 0.01) console.log(`| ${part} | ${fmt(us, 2)} | ${fmt((100 * us) / fanTotal)}% |`);
  }
}

/** Issue 28's targets per scenario: share of the bare server's requests/s, multiple of Prism's, p99 (none for a refusal). */
const TARGETS: Record<string, { bare: number; prism: number; p99Ms: number } | undefined> = {
  "validated submit (POST /v1/generations)": { bare: 65, prism: 12, p99Ms: 5 },
  "list read (GET /v1/generations?limit=20)": { bare: 75, prism: 12, p99Ms: 5 },
};

const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

async function main() {
  // BENCH_ONLY=first|throughput|events|journal|sandboxes runs one part; BENCH_ONLY=profile profiles.
  const only = process.env.BENCH_ONLY;
  console.log(`Simulator benchmark, Node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per server and scenario (medians)`);
  console.log(`Load average before the run: ${loadavg().map((l) => l.toFixed(2)).join(", ")} (other work on the machine skews every figure)`);
  if (!only || only === "throughput") {
    const rows = await throughput();
    console.log("\nThroughput and latency");
    console.log("| Scenario | Server | Requests/s | p50 ms | p99 ms | server CPU us/request | bytes per answer | unexpected status or errors |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|");
    for (const r of rows) console.log(`| ${r.scenario} | ${r.server} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.cpu)} | ${fmt(r.bytes)} | ${fmt(r.bad)} |`);
    console.log("\nRatios against the targets (issue 28; a refusal has none)");
    console.log("| Scenario | requests/s vs Prism | requests/s vs bare | simulator p99 ms | targets | met | CPU per request, Prism / simulator | CPU per request, bare / simulator | requests/s vs bare with a minimal head (no target) |");
    console.log("|---|---:|---:|---:|---|---|---:|---:|---:|");
    for (const scenario of Object.keys({ ...scenarios, ...refusals })) {
      const of = (server: string) => rows.find((r) => r.scenario === scenario && r.server === server)!;
      const sim = of("simulator");
      const vsPrism = sim.rps / of("prism mock").rps;
      const vsBare = (100 * sim.rps) / of(BARE_SERVER).rps;
      const t = TARGETS[scenario];
      const targets = t ? `>= ${t.prism}x Prism, >= ${t.bare}% of bare, p99 <= ${t.p99Ms} ms` : "none";
      const missed = t ? [vsPrism < t.prism && "Prism", vsBare < t.bare && "bare", sim.p99 > t.p99Ms && "p99"].filter(Boolean) : [];
      const met = !t ? "" : missed.length === 0 ? "yes" : `no (${missed.join(", ")})`;
      console.log(`| ${scenario} | ${fmt(vsPrism, 1)}x | ${fmt(vsBare)}% | ${fmt(sim.p99, 1)} | ${targets} | ${met} | ${fmt(of("prism mock").cpu / sim.cpu, 1)}x | ${fmt((100 * of(BARE_SERVER).cpu) / sim.cpu)}% | ${fmt((100 * sim.rps) / of(MINIMAL_HEAD).rps)}% |`);
    }
    console.log("\nThe framework's ceiling: Fastify as the simulator set it up before node:http, answering constants (no simulator work)");
    console.log("| Scenario | requests/s vs Prism | requests/s vs bare | p99 ms | server CPU us/request | simulator CPU beyond it, us/request |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const scenario of Object.keys({ ...scenarios, ...refusals })) {
      const of = (server: string) => rows.find((r) => r.scenario === scenario && r.server === server)!;
      const floor = of("fastify constants");
      console.log(`| ${scenario} | ${fmt(floor.rps / of("prism mock").rps, 1)}x | ${fmt((100 * floor.rps) / of(BARE_SERVER).rps)}% | ${fmt(floor.p99, 1)} | ${fmt(floor.cpu)} | ${fmt(of("simulator").cpu - floor.cpu)} |`);
    }
  }
  if (only === "profile") await profile();
  if (!only || only === "journal") {
    const { rows, frames } = await journalCost();
    console.log("\nThe request journal's cost (target: <= 5% of the throughput with it off)");
    console.log("| Scenario | Server | Requests/s | vs journal off | p99 ms | server CPU us/request | CPU vs journal off | non-2xx or errors |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|");
    for (const scenario of Object.keys(scenarios)) {
      const of = (server: string) => rows.find((r) => r.scenario === scenario && r.server === server)!;
      const off = of(JOURNAL_OFF);
      for (const r of [off, of(JOURNAL_ON), of(PAGE_OPEN)]) {
        const rps = r === off ? "" : `${fmt((100 * (r.rps - off.rps)) / off.rps, 1)}%`;
        const cpu = r === off ? "" : `${fmt((100 * (r.cpu - off.cpu)) / off.cpu, 1)}%`;
        console.log(`| ${scenario} | ${r.server} | ${fmt(r.rps)} | ${rps} | ${fmt(r.p99, 1)} | ${fmt(r.cpu)} | ${cpu} | ${fmt(r.bad)} |`);
      }
    }
    console.log(`(the page's push channel carried ${fmt(frames)} frames)`);
  }
  if (!only || only === "first") {
    const firstAnswer = await firstAnswers();
    console.log(`\nTime to first answer after launch (spawn -> first 200, median of ${LAUNCHES}; target <= 1000 ms for the simulator)`);
    for (const [name, ms] of Object.entries(firstAnswer)) console.log(`- ${name}: ${fmt(ms)} ms`);
  }
  if (!only || only === "events") {
    const events = await eventDelivery();
    const d = [...events.delivery].sort((a, b) => a - b);
    const s = [...events.submitToFrame].sort((a, b) => a - b);
    console.log(`\nEvent delivery with ${STREAMS} open streams (${fmt(events.frames)} frames received)`);
    console.log(`- status change -> frame at each stream: p50 ${percentile(d, 50)} ms, p99 ${percentile(d, 99)} ms, max ${d.at(-1)} ms (target p99 <= 50 ms)`);
    console.log(`- submit sent -> creation frame at each stream: p50 ${percentile(s, 50)} ms, p99 ${percentile(s, 99)} ms`);
  }
  if (!only || only === "sandboxes") {
    const costs = await sandboxCosts();
    const c = [...costs.create].sort((a, b) => a - b);
    const h = [...costs.httpMs].sort((a, b) => a - b);
    console.log("\nSandboxes: making one, and what it holds");
    console.log(`- made from the demo scenario in process (Sandboxes.create, ${c.length}): p50 ${fmt(percentile(c, 50), 2)} ms, p99 ${fmt(percentile(c, 99), 2)} ms (target p50 <= 5 ms)`);
    console.log(`- over HTTP, POST /_sim/sandboxes then DELETE (a per-test fixture's cost, ${h.length}): p50 ${fmt(percentile(h, 50), 2)} ms, p99 ${fmt(percentile(h, 99), 2)} ms`);
    console.log(`- heap per idle sandbox (200, after a full GC): ${fmt(costs.idleBytes / 1024)} KiB; after 20 submits and 20 list reads each (journal of 200 rows): ${fmt(costs.usedBytes / 1024)} KiB; heap grown by a second cycle of making, using and deleting 200: ${fmt(costs.leftBytes / 1024)} KiB`);
    const rows = await sandboxLoad();
    console.log("\nThe same load on one hub, and spread over 8 sandboxes (target: within 10% per request)");
    console.log("| Scenario | Hubs | Requests/s | vs one hub | p99 ms | server CPU us/request | CPU vs one hub | non-2xx or errors |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|");
    for (const scenario of Object.keys(scenarios)) {
      const one = rows.find((r) => r.scenario === scenario && r.server === ONE_HUB)!;
      const eight = rows.find((r) => r.scenario === scenario && r.server === EIGHT)!;
      for (const r of [one, eight]) {
        const rps = r === one ? "" : `${fmt((100 * (r.rps - one.rps)) / one.rps, 1)}%`;
        const cpu = r === one ? "" : `${fmt((100 * (r.cpu - one.cpu)) / one.cpu, 1)}%`;
        console.log(`| ${scenario} | ${r.server} | ${fmt(r.rps)} | ${rps} | ${fmt(r.p99, 1)} | ${fmt(r.cpu)} | ${cpu} | ${fmt(r.bad)} |`);
      }
    }
  }
  console.log(`\nLoad average after the run: ${loadavg().map((l) => l.toFixed(2)).join(", ")}`);
}

await main();
