// Client benchmarks (`npm run bench:client`). Prints figures; asserts nothing.
//
// 1. Per-call cost on one local server (in this process), in one run: raw `fetch`, bare
//    openapi-fetch, and this client (`hub.GET`: credentials and X-Request-Id per attempt,
//    timeout, retry classification, typed result). Other work on the machine moves every
//    figure, so rounds are short and interleaved (the order rotates per round), each
//    round measures wall time and this process's CPU time, and the ratios are the median
//    over rounds of each round's own ratio to raw fetch in that round. The load average is
//    printed before and after; re-run when it is low.
// 2. The CPU cost of the layers alone: the same calls over a stand-in `fetch` that builds
//    the Request a real fetch builds from its arguments and answers at once (no network).
// 3. Minified + gzipped size (esbuild, browser platform) of an app using the client
//    without OAuth, and with the OAuth entry point; bare openapi-fetch for reference.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import createClient from "openapi-fetch";
import type { paths } from "../generated/types.ts";
import { createHubClient } from "../src/client/index.ts";
import { at } from "../scripts/lib/paths.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 100);
const CALLS = Number(process.env.CALLS ?? 50);
const ID = "gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB";
const BODY = JSON.stringify({ id: ID, type: "video", status: "RUNNING", output_urls: [] });
const HEADERS = { "Content-Type": "application/json", "X-Request-Id": "req_server", RateLimit: '"default";r=59;t=42', "RateLimit-Policy": '"default";q=60;w=60' };
const KEY = "Bearer hub_bench_key";

type Contenders = Record<string, () => Promise<unknown>>;

/**
 * openapi-fetch's `Request` option given a class that builds no Request: the call's address
 * and init, sent as fetch(url, init). What openapi-fetch itself costs, the floor of any client
 * built on it.
 */
class NoRequest {
  readonly url: string;
  readonly method: string;
  readonly init: RequestInit;
  constructor(url: string, init: RequestInit) {
    this.url = url;
    this.method = init.method!;
    this.init = init;
  }
}

/** The ways to make the same call against `base`. */
function contenders(base: string): Contenders {
  const url = `${base}/v1/generations/${ID}`;
  const bare = createClient<paths>({ baseUrl: base, fetch: (r) => globalThis.fetch(r) });
  const floor = createClient<paths>({ baseUrl: base, Request: NoRequest as unknown as typeof Request, fetch: (r) => globalThis.fetch(r.url, (r as unknown as NoRequest).init) });
  const hub = createHubClient({ baseUrl: base, apiKey: "hub_bench_key" });
  const header = () => ({ Authorization: KEY, "X-Request-Id": crypto.randomUUID() });
  return {
    "raw fetch": async () => (await fetch(url, { headers: header() })).json(),
    "bare openapi-fetch": async () => (await bare.GET("/v1/generations/{id}", { params: { path: { id: ID } }, headers: header() })).data,
    "openapi-fetch building no Request (floor)": async () => (await floor.GET("/v1/generations/{id}", { params: { path: { id: ID } }, headers: header() })).data,
    "hub client (hub.GET)": async () => (await hub.GET("/v1/generations/{id}", { params: { path: { id: ID } } })).data,
  };
}

/** Interleaved rounds: per contender and round, wall and CPU microseconds per call. */
async function rounds(c: Contenders, count: number, calls: number) {
  const entries = Object.entries(c);
  for (const [, fn] of entries) for (let i = 0; i < 500; i++) await fn(); // warm-up
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round < count; round++) {
    const k = round % entries.length;
    for (const [name, fn] of entries.slice(k).concat(entries.slice(0, k))) {
      const start = performance.now();
      const used = process.cpuUsage();
      for (let i = 0; i < calls; i++) await fn();
      const spent = process.cpuUsage(used);
      (wall[name] ??= []).push(((performance.now() - start) * 1000) / calls);
      (cpu[name] ??= []).push((spent.user + spent.system) / calls);
    }
  }
  return { wall, cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Median over rounds of the round's ratio of `name` to `reference`. */
const ratio = (m: Record<string, number[]>, name: string, reference: string) => median(m[name]!.map((x, i) => x / m[reference]![i]!));
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");

async function perCall() {
  const server = createServer((req, res) => {
    res.writeHead(200, { ...HEADERS, "X-Request-Id": String(req.headers["x-request-id"] ?? "req_server"), "Cache-Control": "private, no-store", Vary: "Authorization, Cookie, Origin" });
    res.end(BODY);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const before = load();
  const { wall, cpu } = await rounds(contenders(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), ROUNDS, CALLS);
  server.close();
  console.log(`\nPer-call cost, sequential GET on a local server in this process (${ROUNDS} interleaved rounds x ${CALLS} calls), Node ${process.version}`);
  console.log(`(load average before: ${before}; after: ${load()}; ${(await import("node:os")).availableParallelism()} CPUs)`);
  console.log("| Contender | wall us per call (median) | vs raw fetch (wall) | CPU us per call (median) | vs raw fetch (CPU) | vs bare openapi-fetch (CPU) |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const name of Object.keys(wall)) {
    console.log(`| ${name} | ${median(wall[name]!).toFixed(1)} | ${ratio(wall, name, "raw fetch").toFixed(3)}x | ${median(cpu[name]!).toFixed(1)} | ${ratio(cpu, name, "raw fetch").toFixed(3)}x | ${ratio(cpu, name, "bare openapi-fetch").toFixed(3)}x |`);
  }
}

/** CPU cost of the layers alone: a stand-in fetch that builds the Request fetch builds from its arguments, then answers at once. */
async function inMemory() {
  const real = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    void new Request(input, init);
    return new Response(BODY, { status: 200, headers: HEADERS });
  }) as typeof fetch;
  try {
    const { cpu } = await rounds(contenders("http://hub.test"), 30, 1_000);
    console.log("\nCPU cost per call over a stand-in fetch (builds the Request fetch would build, answers at once; no network; median of 30 interleaved rounds x 1000 calls)");
    console.log("| Layer | CPU us per call | over raw fetch |");
    console.log("|---|---:|---:|");
    const raw = median(cpu["raw fetch"]!);
    for (const name of Object.keys(cpu)) console.log(`| ${name} | ${median(cpu[name]!).toFixed(1)} | ${(median(cpu[name]!) - raw).toFixed(1)} |`);
  } finally {
    globalThis.fetch = real;
  }
}

async function sizes() {
  const dir = mkdtempSync(join(tmpdir(), "client-size-"));
  const client = JSON.stringify(at("src/client/index.ts"));
  const oauth = JSON.stringify(at("src/client/oauth/index.ts"));
  const apps: Record<string, string> = {
    "bare openapi-fetch (reference)": `import createClient from "openapi-fetch";
      const c = createClient({ baseUrl: location.origin });
      export const run = () => c.GET("/v1/me");`,
    "client without OAuth": `import { createHubClient, HubApiError } from ${client};
      const hub = createHubClient({ baseUrl: location.origin, apiKey: "k" });
      export async function run(file) {
        const { data } = await hub.submit({ type: "video", model: "m" });
        for await (const e of hub.events({ track: [data.id] })) if (e.event === "reset") break;
        await hub.waitForGeneration(data.id);
        for await (const g of hub.paginate("/v1/generations")) console.log(g.id);
        await hub.statuses([data.id]);
        try { await hub.upload(file, { contentType: "image/png" }); } catch (e) { if (e instanceof HubApiError) console.log(e.code, e.rateLimit); }
      }`,
    "client with OAuth": `import { createHubClient } from ${client};
      import { discover, register, authorizationUrl, exchangeCode, TokenStore } from ${oauth};
      export async function run(file, callback) {
        const server = await discover(location.origin);
        const client = await register(server, { redirect_uris: [location.origin + "/cb"] });
        const request = await authorizationUrl(server, client, { redirectUri: location.origin + "/cb", scope: ["generations:write"] });
        const store = new TokenStore(server, client);
        await store.set(await exchangeCode(server, client, request, await callback(request.url)));
        const hub = createHubClient({ baseUrl: location.origin, token: store.provider() });
        const { data } = await hub.submit({ type: "video", model: "m" });
        await hub.waitForGeneration(data.id);
        for await (const g of hub.paginate("/v1/generations")) console.log(g.id);
        await hub.upload(file, { contentType: "image/png" });
      }`,
  };
  console.log("\nApp bundle size (esbuild --bundle --minify, platform browser, ES2022; gzip level 9)");
  console.log("| App | minified | min + gzip |");
  console.log("|---|---:|---:|");
  try {
    for (const [name, source] of Object.entries(apps)) {
      const entry = join(dir, `${name.replace(/\W+/g, "-")}.js`);
      writeFileSync(entry, source);
      const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, absWorkingDir: at("."), nodePaths: [at("node_modules")], logLevel: "error" });
      const bytes = out.outputFiles[0]!.contents;
      const gz = gzipSync(bytes, { level: 9 }).length;
      console.log(`| ${name} | ${(bytes.length / 1024).toFixed(1)} kB | ${(gz / 1024).toFixed(2)} kB |`);
    }
    // What the bytes of the app without OAuth are: each package's share of the minified
    // output, and the gzipped size of that package alone (gzip does not split exactly).
    const alone = async (source: string, external: string[] = []) => {
      const entry = join(dir, "part.js");
      writeFileSync(entry, source);
      const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, metafile: true, external, absWorkingDir: at("."), nodePaths: [at("node_modules")], logLevel: "error" });
      return { bytes: out.outputFiles[0]!.contents, metafile: out.metafile! };
    };
    const app = await alone(apps["client without OAuth"]!);
    const shares = new Map<string, number>();
    for (const [file, input] of Object.entries(Object.values(app.metafile.outputs)[0]!.inputs)) {
      const key = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? (file.includes("src/client") ? "this client (src/client)" : "the app itself");
      shares.set(key, (shares.get(key) ?? 0) + input.bytesInOutput);
    }
    const libraries: Record<string, string> = {
      "openapi-fetch": `import c from "openapi-fetch"; export const f = (o) => c(o);`,
      "structured-headers": `import { parseList } from "structured-headers"; export const f = (v) => parseList(v);`,
      "eventsource-parser": `import { createParser } from "eventsource-parser"; export const f = (o) => createParser(o);`,
    };
    const ownOnly = await alone(apps["client without OAuth"]!, Object.keys(libraries));
    console.log("\nWhat the bytes of the app without OAuth are");
    console.log("| Part | minified in the app | min + gzip alone |");
    console.log("|---|---:|---:|");
    for (const [part, minified] of [...shares].sort((a, b) => b[1] - a[1])) {
      const gz = part in libraries ? gzipSync((await alone(libraries[part]!)).bytes, { level: 9 }).length : part.startsWith("this client") ? gzipSync(ownOnly.bytes, { level: 9 }).length : undefined;
      console.log(`| ${part} | ${(minified / 1024).toFixed(1)} kB | ${gz === undefined ? "" : `${(gz / 1024).toFixed(2)} kB`} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await perCall();
await inMemory();
await sizes();
