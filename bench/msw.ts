// The hub as Mock Service Worker handlers (`npm run bench:msw`). Prints figures; asserts nothing.
//
// 1. One validated submit (a fresh Idempotency-Key each time, so each is a new generation),
//    one at a time, from this process, by plain fetch and by the typed client:
//    - through MSW (msw/node's interceptor, createHubHandlers, no server), and
//    - through a loopback server (startSimulator on port 0, Fastify, in this process too).
//    Rounds are interleaved (the order rotates per round); MSW's interceptor is applied
//    only for its own rounds, so the loopback calls do not pass through it.
// 2. The per-test reset of an in-process hub: `hub.reset()` and `control.reset()` (the same
//    through the hub's control route), each after a few submits so there is state to drop.
// Medians and p99 over every call, and this process's CPU time per submit (the median over
// rounds; client and server are both in this process either way, and CPU time moves less
// than wall time when the machine is shared). The load average is printed before and after
// (re-run when it is low). ROUNDS, CALLS and RESETS tune it.
import { loadavg } from "node:os";
import { setupServer } from "msw/node";
import { createHubClient } from "../src/client/index.ts";
import { startSimulator } from "../src/simulator/index.ts";
import { createHubHandlers } from "../src/simulator/msw/index.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const CALLS = Number(process.env.CALLS ?? 200);
const RESETS = Number(process.env.RESETS ?? 2000);
const KEY = "ghk_demo_full";
const SUBMIT = { type: "video", model: "video-model-a", prompt: "A lighthouse at dusk, waves breaking, slow dolly-in", duration: 5 } as const;
const SUBMIT_BODY = JSON.stringify(SUBMIT);
const UNLIMITED = { keyQuota: 1e9, accountQuota: 1e9, submitQuota: 1e9, concurrency: 1e9 };

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

type Call = () => Promise<unknown>;

function contenders(base: string): Record<string, Call> {
  const client = createHubClient({ baseUrl: base, apiKey: KEY });
  return {
    "plain fetch": async () => {
      const res = await fetch(`${base}/v1/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: SUBMIT_BODY,
      });
      if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
      return res.json();
    },
    "typed client": async () => (await client.submit(SUBMIT)).data,
  };
}

async function main(): Promise<void> {
  console.log(`MSW benchmark, Node ${process.version}; ${ROUNDS} interleaved rounds of ${CALLS} sequential submits per contender; load average before: ${load()}`);

  const msw = createHubHandlers({ rateLimits: UNLIMITED });
  await msw.control.setBalance("acc_demo", 1e15);
  const interceptor = setupServer(...msw.handlers);
  const sim = await startSimulator({ port: 0, clockSpeed: 0, rateLimits: UNLIMITED });
  await fetch(`${sim.url}/_sim/accounts/acc_demo`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ balance_cc: 1e15 }) });

  const paths: Record<string, { base: string; around: (run: () => Promise<void>) => Promise<void> }> = {
    MSW: {
      base: msw.baseUrl,
      around: async (run) => {
        interceptor.listen({ onUnhandledRequest: "error" });
        try {
          await run();
        } finally {
          interceptor.close();
        }
      },
    },
    "loopback server": { base: sim.url, around: (run) => run() },
  };
  const rows: { path: string; how: string; call: Call }[] = [];
  for (const [path, p] of Object.entries(paths)) for (const [how, call] of Object.entries(contenders(p.base))) rows.push({ path, how, call });

  // Warm-up: the validators compile, the JIT settles.
  for (const row of rows) await paths[row.path]!.around(async () => {
    for (let i = 0; i < 300; i++) await row.call();
  });

  const samples = new Map<string, number[]>(rows.map((r) => [`${r.path}|${r.how}`, []]));
  const cpu = new Map<string, number[]>(rows.map((r) => [`${r.path}|${r.how}`, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const k = round % rows.length;
    for (const row of rows.slice(k).concat(rows.slice(0, k))) {
      const into = samples.get(`${row.path}|${row.how}`)!;
      await paths[row.path]!.around(async () => {
        const used = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) {
          const start = performance.now();
          await row.call();
          into.push((performance.now() - start) * 1000);
        }
        const spent = process.cpuUsage(used);
        cpu.get(`${row.path}|${row.how}`)!.push((spent.user + spent.system) / CALLS);
      });
    }
  }

  console.log("\nValidated submit round trip, one at a time (µs per submit)\n");
  console.log("| How | MSW p50 | MSW p99 | MSW CPU | Loopback p50 | Loopback p99 | Loopback CPU | MSW vs loopback (p50) |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const how of Object.keys(contenders(msw.baseUrl))) {
    const m = samples.get(`MSW|${how}`)!;
    const l = samples.get(`loopback server|${how}`)!;
    const ratio = quantile(m, 0.5) / quantile(l, 0.5);
    const mCpu = quantile(cpu.get(`MSW|${how}`)!, 0.5);
    const lCpu = quantile(cpu.get(`loopback server|${how}`)!, 0.5);
    console.log(`| ${how} | ${quantile(m, 0.5).toFixed(0)} | ${quantile(m, 0.99).toFixed(0)} | ${mCpu.toFixed(0)} | ${quantile(l, 0.5).toFixed(0)} | ${quantile(l, 0.99).toFixed(0)} | ${lCpu.toFixed(0)} | ${ratio.toFixed(2)}x |`);
  }
  await sim.close();
  msw.hub.shutdown();

  // Per-test reset: a hub with the demo fixtures and a few submits, reset, again and again.
  const fresh = createHubHandlers();
  const resets: Record<string, number[]> = { "hub.reset()": [], "control.reset()": [] };
  const submitFew = () => {
    for (let i = 0; i < 3; i++) {
      fresh.hub.handle({
        method: "POST",
        url: "/v1/generations",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: new TextEncoder().encode(SUBMIT_BODY),
        baseUrl: fresh.baseUrl,
      });
    }
  };
  for (let i = 0; i < RESETS; i++) {
    for (const [name, reset] of (i % 2 ? [["hub.reset()", async () => fresh.hub.reset()], ["control.reset()", () => fresh.control.reset()]] : [["control.reset()", () => fresh.control.reset()], ["hub.reset()", async () => fresh.hub.reset()]]) as [string, () => Promise<unknown>][]) {
      submitFew();
      const start = performance.now();
      await reset();
      resets[name]!.push((performance.now() - start) * 1000);
    }
  }
  fresh.hub.shutdown();
  console.log(`\nPer-test reset of an in-process hub (µs; ${RESETS} each, interleaved, each after 3 submits)\n`);
  console.log("| Reset | p50 | p99 |");
  console.log("|---|---:|---:|");
  for (const [name, xs] of Object.entries(resets)) console.log(`| ${name} | ${quantile(xs, 0.5).toFixed(0)} | ${quantile(xs, 0.99).toFixed(0)} |`);
  console.log(`\nLoad average after: ${load()}`);
}

await main();
