// How well the conformance suite finds contract bugs, and how fast (`npm run bench:conformance`).
// Prints figures side by side with their references; the exit status is 1 only when the
// clean simulator gets a false failure or a broken server goes unfound where the table
// says it is found.
//
// 1. The suite against the clean simulator, as `npm run conformance` runs it (the command
//    itself, in a child process, so its start is counted): the default run (reference:
//    under 10 s) and `--generate=1000` (reference: under 3 minutes). Both must fail no rule.
// 2. Against every deliberately broken server of test/conformance/support/doubles.ts (the
//    simulator behind a proxy with one injected contract bug, naming the seed rule it
//    breaks): the default run, then a run with generated inputs and the stateful walk
//    (`--generate=PER_OPERATION`, default 20, seed SEED). A double is detected when its
//    rule fails; the rules that failed are listed.
// DOUBLES=0,3,5 runs only those doubles; SKIP_CLEAN=1 skips part 1. The load average is
// printed before and after (the machine is shared: re-run when it is high).
import { execFile } from "node:child_process";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import type { Report } from "../src/conformance/index.ts";
import { DOUBLES, type Double } from "../test/conformance/support/doubles.ts";
import { startProxy } from "../test/conformance/support/proxy.ts";
import { failing, runFull, startSim } from "../test/conformance/support/run.ts";

const PER_OPERATION = Number(process.env.PER_OPERATION ?? 20);
const SEED = Number(process.env.SEED ?? 7);
const CLEAN_GENERATE = Number(process.env.CLEAN_GENERATE ?? 1000);
const WIDE = { rateLimits: { keyQuota: 1_000_000, accountQuota: 1_000_000, submitQuota: 1_000_000, concurrency: 100_000 } };

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");
const run = promisify(execFile);

/** `npm run conformance` as a user runs it: its wall time, its own duration and what failed. */
async function command(args: string[]): Promise<{ wallSeconds: number; suiteSeconds: number; failed: string[]; requests: number; exit: number }> {
  const started = Date.now();
  let stdout = "";
  let exit = 0;
  try {
    ({ stdout } = await run(process.execPath, ["--import", "tsx", "src/conformance/main.ts", "--json", ...args], { maxBuffer: 512 * 1024 * 1024 }));
  } catch (error) {
    const e = error as { stdout?: string; code?: number };
    stdout = e.stdout ?? "";
    exit = e.code ?? 1;
  }
  const wallSeconds = (Date.now() - started) / 1000;
  const report = JSON.parse(stdout) as Report;
  return { wallSeconds, suiteSeconds: report.durationMs / 1000, failed: failing(report), requests: report.requests.total, exit };
}

interface Outcome {
  failed: string[];
  seconds: number;
  errors: number;
}

async function against(d: Double, generate: boolean): Promise<Outcome> {
  const sim = await startSim(generate ? WIDE : {});
  const proxy = await startProxy(sim.url, d.make(sim));
  const started = Date.now();
  try {
    const report = await runFull(sim, proxy.url, { quick: true, requestTimeoutMs: 5_000, ...(generate ? { generate: { perOperation: PER_OPERATION, seed: SEED } } : {}) });
    return { failed: failing(report), seconds: (Date.now() - started) / 1000, errors: report.errors.length };
  } finally {
    await proxy.close();
    await sim.close();
  }
}

function cell(d: Double, o: Outcome): string {
  const found = o.failed.includes(d.rule);
  const others = o.failed.filter((r) => r !== d.rule);
  return `${found ? "yes" : "NO "} ${[found ? d.rule : "", ...others].filter(Boolean).join(" ") || "-"}`;
}

async function main(): Promise<void> {
  console.log(`Conformance suite benchmark, Node ${process.version}; load average before: ${load()}`);
  let problems = 0;

  if (!process.env.SKIP_CLEAN) {
    console.log("\nThe clean simulator (npm run conformance, the command's start included):");
    const plain = await command([]);
    console.log(`  default run:            ${plain.wallSeconds.toFixed(1)} s (suite ${plain.suiteSeconds.toFixed(1)} s, ${plain.requests} requests)   reference < 10 s   false failures: ${plain.failed.length}${plain.failed.length ? ` (${plain.failed.join(", ")})` : ""}`);
    const gen = await command([`--generate=${CLEAN_GENERATE}`, "--seed", String(SEED)]);
    console.log(`  --generate=${CLEAN_GENERATE} --seed ${SEED}: ${gen.wallSeconds.toFixed(1)} s (suite ${gen.suiteSeconds.toFixed(1)} s, ${gen.requests} requests)   reference < 180 s   false failures: ${gen.failed.length}${gen.failed.length ? ` (${gen.failed.join(", ")})` : ""}`);
    problems += plain.failed.length + gen.failed.length;
    console.log(`  load average: ${load()}`);
  }

  const chosen = process.env.DOUBLES ? process.env.DOUBLES.split(",").map(Number) : DOUBLES.map((_, i) => i);
  console.log(`\nBroken servers (${chosen.length} of ${DOUBLES.length}): the suite's default run, then --generate=${PER_OPERATION} --seed ${SEED} with the stateful walk (--quick, writes, spending, a second account, role keys, two keys with fewer scopes, a site session, OAuth auto-consent):`);
  const width = Math.max(...chosen.map((i) => DOUBLES[i]!.title.length));
  console.log(`  ${"#".padStart(2)}  ${"area".padEnd(16)} ${"rule".padEnd(8)} ${"bug".padEnd(width)}  ${"default run: found, rules failed".padEnd(40)}  with --generate: found, rules failed`);
  let byDefault = 0;
  let byGenerate = 0;
  let seconds = { plain: 0, generate: 0 };
  for (const i of chosen) {
    const d = DOUBLES[i]!;
    const plain = await against(d, false);
    const gen = await against(d, true);
    seconds = { plain: seconds.plain + plain.seconds, generate: seconds.generate + gen.seconds };
    const foundPlain = plain.failed.includes(d.rule);
    const foundGen = gen.failed.includes(d.rule);
    if (foundPlain) byDefault++;
    if (foundGen) byGenerate++;
    // The table's own claim: found by the default run, or only with generated inputs.
    const missed = (d.found === "default" && !foundPlain) || !foundGen;
    if (missed) problems++;
    console.log(`  ${String(i).padStart(2)}  ${d.area.padEnd(16)} ${d.rule.padEnd(8)} ${d.title.padEnd(width)}  ${cell(d, plain).padEnd(40)}  ${cell(d, gen)}${missed ? "   <- expected found" : ""}${plain.errors + gen.errors ? `   (${plain.errors + gen.errors} check error(s))` : ""}`);
  }
  const n = chosen.length;
  console.log(`\nDetected: ${byDefault} of ${n} by the default run, ${byGenerate} of ${n} with generated inputs and the stateful walk (${chosen.filter((i) => DOUBLES[i]!.found === "generate").length} of them need generation).`);
  console.log(`Time against the broken servers: ${seconds.plain.toFixed(0)} s for the default runs (${(seconds.plain / n).toFixed(1)} s each), ${seconds.generate.toFixed(0)} s with --generate=${PER_OPERATION} (${(seconds.generate / n).toFixed(1)} s each).`);
  console.log(`Load average after: ${load()}`);
  process.exitCode = problems > 0 ? 1 : 0;
}

await main();
