// Client benchmarks (`npm run bench:client`). Prints figures; asserts nothing.
//
// 1. Per-call cost on one local server, in one run: raw `fetch`, bare openapi-fetch, and
//    this client (`hub.GET`, which adds the transport: credentials and X-Request-Id per
//    attempt, timeout, retry classification, typed result). Rounds interleave the three
//    (rotating the order) so drift of the machine hits them alike; the figures are the
//    median and the best of the round means (the best round is the least disturbed by
//    other load on the machine; the load average is printed with them).
//    The same calls over an in-memory fetch give the CPU cost of the layers alone.
// 2. Minified + gzipped size (esbuild, browser platform) of an app using the client
//    without OAuth, and with the OAuth entry point; bare openapi-fetch for reference.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import createClient from "openapi-fetch";
import type { paths } from "../generated/types.ts";
import { createHubClient } from "../src/client/index.ts";
import { at } from "../scripts/lib/paths.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const CALLS = Number(process.env.CALLS ?? 200);
const ID = "gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB";
const BODY = JSON.stringify({ id: ID, type: "video", status: "RUNNING", output_urls: [] });

async function perCall() {
  const server = createServer((req, res) => {
    res.writeHead(200, {
      "Content-Type": "application/json",
      "X-Request-Id": String(req.headers["x-request-id"] ?? "req_server"),
      "Cache-Control": "private, no-store",
      Vary: "Authorization, Cookie, Origin",
      RateLimit: '"default";r=59;t=42',
      "RateLimit-Policy": '"default";q=60;w=60',
    });
    res.end(BODY);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${base}/v1/generations/${ID}`;
  const key = "Bearer hub_bench_key";

  const bare = createClient<paths>({ baseUrl: base, fetch: (r) => globalThis.fetch(r) });
  const hub = createHubClient({ baseUrl: base, apiKey: "hub_bench_key" });

  const contenders: Record<string, () => Promise<unknown>> = {
    "raw fetch": async () => {
      const r = await fetch(url, { headers: { Authorization: key, "X-Request-Id": crypto.randomUUID() } });
      return r.json();
    },
    "bare openapi-fetch": async () => (await bare.GET("/v1/generations/{id}", { params: { path: { id: ID } }, headers: { Authorization: key, "X-Request-Id": crypto.randomUUID() } })).data,
    "hub client (hub.GET)": async () => (await hub.GET("/v1/generations/{id}", { params: { path: { id: ID } } })).data,
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (const fn of Object.values(contenders)) for (let i = 0; i < 300; i++) await fn(); // warm-up
  const entries = Object.entries(contenders);
  for (let round = 0; round < ROUNDS; round++) {
    // The order rotates per round, so no contender always runs first.
    for (const [name, fn] of entries.slice(round % entries.length).concat(entries.slice(0, round % entries.length))) {
      const start = performance.now();
      for (let i = 0; i < CALLS; i++) await fn();
      samples[name]!.push(((performance.now() - start) * 1000) / CALLS);
    }
  }
  server.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const raw = median(samples["raw fetch"]!);
  console.log(`\nPer-call cost, sequential GET on a local server (${ROUNDS} rounds x ${CALLS} calls, median of round means), Node ${process.version}`);
  const min = (xs: number[]) => Math.min(...xs);
  const bareMedian = median(samples["bare openapi-fetch"]!);
  const rawMin = min(samples["raw fetch"]!);
  console.log("| Contender | us per call (median) | vs raw fetch | vs bare openapi-fetch | us per call (best round) | vs raw fetch (best rounds) |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const name of Object.keys(contenders)) {
    const m = median(samples[name]!);
    const b = min(samples[name]!);
    console.log(`| ${name} | ${m.toFixed(1)} | ${(m / raw).toFixed(3)}x | ${(m / bareMedian).toFixed(3)}x | ${b.toFixed(1)} | ${(b / rawMin).toFixed(3)}x |`);
  }
  console.log(`(load average at the end: ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")})`);
}

/** CPU cost of the layers alone: the same calls over an in-memory fetch (no network, little noise). */
async function inMemory() {
  const answer = () => new Response(BODY, { status: 200, headers: { "Content-Type": "application/json", "X-Request-Id": "req_server", RateLimit: '"default";r=59;t=42', "RateLimit-Policy": '"default";q=60;w=60' } });
  const fake = async (_: Request) => answer();
  const base = "http://hub.test";
  const bare = createClient<paths>({ baseUrl: base, fetch: fake });
  const hub = createHubClient({ baseUrl: base, apiKey: "hub_bench_key", fetch: fake });
  const key = "Bearer hub_bench_key";
  const contenders: Record<string, () => Promise<unknown>> = {
    "bare openapi-fetch": async () => (await bare.GET("/v1/generations/{id}", { params: { path: { id: ID } }, headers: { Authorization: key, "X-Request-Id": crypto.randomUUID() } })).data,
    "hub client (hub.GET)": async () => (await hub.GET("/v1/generations/{id}", { params: { path: { id: ID } } })).data,
  };
  const best: Record<string, number> = {};
  for (const [name, fn] of Object.entries(contenders)) for (let i = 0; i < 5_000; i++) await fn();
  for (let round = 0; round < 10; round++) {
    for (const [name, fn] of Object.entries(contenders)) {
      const start = performance.now();
      for (let i = 0; i < 5_000; i++) await fn();
      const us = ((performance.now() - start) * 1000) / 5_000;
      best[name] = Math.min(best[name] ?? Infinity, us);
    }
  }
  console.log("\nCPU cost per call over an in-memory fetch (no network; best of 10 rounds x 5000 calls)");
  console.log("| Layer | us per call |");
  console.log("|---|---:|");
  for (const [name, us] of Object.entries(best)) console.log(`| ${name} | ${us.toFixed(1)} |`);
  console.log(`| added by this client over bare openapi-fetch | ${(best["hub client (hub.GET)"]! - best["bare openapi-fetch"]!).toFixed(1)} |`);
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
        try { await hub.upload(file, { contentType: "image/png" }); } catch (e) { if (e instanceof HubApiError) console.log(e.code, hub.rateLimit); }
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await perCall();
await inMemory();
await sizes();
