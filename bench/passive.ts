// Passive conformance's cost (`npm run bench:conformance`, part 3; alone: `npx tsx
// bench/passive.ts`). Prints figures beside their references (issue 25) and asserts nothing.
//
// 1. Overhead per exchange: GET /v1/me to the simulator, direct and through the passive proxy
//    (every answer judged), one request at a time, the two interleaved so that load drift
//    falls on both; p50 and p90 of each and of the difference (reference: at most 1 ms at p50).
// 2. Memory: PASSIVE_EXCHANGES (default 20,000) exchanges through the proxy, as fast as
//    PASSIVE_CONCURRENCY (default 16) clients send them, to a replay server that answers
//    what the simulator answered once (so that only the proxy and its judge grow), each with
//    its own X-Request-Id and one of 20,000 bearer credentials. The heap after a collection
//    is printed at each tenth; an hour at 200 requests per second is 720,000 exchanges
//    (reference: at most 512 MiB): what is printed is the figure at the end and the growth
//    over the second half, from which the hour follows if the proxy holds no more per
//    exchange than it did there.
// The load average is printed before and after (the machine may be shared).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startConformanceProxy } from "../src/conformance/index.ts";
import { startSim } from "../test/conformance/support/run.ts";

const ROUNDS = Number(process.env.PASSIVE_ROUNDS ?? 2000);
const EXCHANGES = Number(process.env.PASSIVE_EXCHANGES ?? 20_000);
const CONCURRENCY = Number(process.env.PASSIVE_CONCURRENCY ?? 16);
const CREDENTIALS = 20_000;
const HOUR = 200 * 3600;
const KEY = "ghk_demo_full";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t = process.hrtime.bigint();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export async function benchPassive(): Promise<void> {
  console.log(`\nPassive conformance (issue 25): load average before ${load()}`);
  const sim = await startSim();
  const proxy = await startConformanceProxy({ baseUrl: sim.url });
  const headers = { authorization: `Bearer ${KEY}` };
  const direct: number[] = [];
  const proxied: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < 100; i++) await Promise.all([timed(`${sim.url}/v1/me`, headers), timed(`${proxy.url}/v1/me`, headers)]);
  for (let i = 0; i < ROUNDS; i++) {
    const a = await timed(`${sim.url}/v1/me`, headers);
    const b = await timed(`${proxy.url}/v1/me`, headers);
    direct.push(a);
    proxied.push(b);
    diff.push(b - a);
  }
  for (const list of [direct, proxied, diff]) list.sort((x, y) => x - y);
  const report = await proxy.stop();
  console.log(`  overhead per exchange (GET /v1/me, ${ROUNDS} of each, interleaved): direct p50 ${pct(direct, 50).toFixed(3)} ms, through the proxy p50 ${pct(proxied, 50).toFixed(3)} ms; difference p50 ${pct(diff, 50).toFixed(3)} ms (reference: at most 1 ms), p90 ${pct(diff, 90).toFixed(3)} ms; ${report.summary.fail} rules failed over ${report.requests.total} exchanges`);

  // A replay of one real answer, so that only the proxy and its judge hold memory.
  const sample = await fetch(`${sim.url}/v1/me`, { headers });
  const body = await sample.text();
  const answer = [...sample.headers].filter(([n]) => n !== "content-length" && n !== "x-request-id" && n !== "date");
  await sim.close();
  const replay = createServer((req, res) => {
    req.resume();
    res.writeHead(200, [...answer, ["x-request-id", String(req.headers["x-request-id"] ?? "r")]].flat());
    res.end(body);
  });
  await new Promise<void>((resolve) => replay.listen(0, "127.0.0.1", resolve));
  const upstream = `http://127.0.0.1:${(replay.address() as AddressInfo).port}`;
  const passive = await startConformanceProxy({ baseUrl: upstream });
  gc();
  const base = process.memoryUsage();
  const heaps: number[] = [];
  let sent = 0;
  const started = Date.now();
  const client = async () => {
    while (sent < EXCHANGES) {
      const n = sent++;
      const res = await fetch(`${passive.url}/v1/me`, { headers: { authorization: `Bearer ghk_bench_${n % CREDENTIALS}`, "x-request-id": `bench-${n}` } });
      await res.arrayBuffer();
      if ((n + 1) % (EXCHANGES / 10) === 0) {
        gc();
        heaps.push(process.memoryUsage().heapUsed);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const seconds = (Date.now() - started) / 1000;
  gc();
  const end = process.memoryUsage();
  const end2 = await passive.stop();
  replay.close();
  const half = heaps[Math.floor(heaps.length / 2) - 1] ?? base.heapUsed;
  const perExchange = (end.heapUsed - half) / (EXCHANGES / 2);
  console.log(`  memory: ${EXCHANGES} exchanges (${CREDENTIALS} credentials, ${CONCURRENCY} at a time) in ${seconds.toFixed(1)} s (${Math.round(EXCHANGES / seconds)}/s); heap after a collection ${mib(base.heapUsed)} before, ${heaps.map(mib).join(", ")} at each tenth; rss ${mib(end.rss)} at the end (${mib(base.rss)} before)`);
  console.log(`  growth over the second half ${(perExchange).toFixed(1)} bytes per exchange: an hour at 200/s (${HOUR} exchanges) extrapolates to a heap of ${mib(end.heapUsed + Math.max(0, perExchange) * (HOUR - EXCHANGES))} (reference: at most 512 MiB); ${end2.summary.fail} rules failed (the replayed answer's countdown does not move: its findings are kept within their bounds)`);
  console.log(`  load average after ${load()}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPassive();
