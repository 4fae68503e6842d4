// How fast the conformance suite runs and how well it finds contract bugs
// (`npm run bench:conformance`). Prints figures side by side with their references and
// asserts nothing; the exit status is 1 only when the clean simulator gets a false failure
// or a broken server goes unfound where the table says it is found.
//
// 1. The standalone simulator started as docs/conformance.md's "Against the simulator in
//    CI" starts it (the flags and environment are read from that section, so the bench
//    times what the guide says), and `generation-hub conformance` against it as the guide
//    runs it, in child processes: the default run (reference: at most 15 s) and
//    `--generate=100` (reference: at most 60 s), each against a fresh simulator. Both must
//    fail no rule.
// 2. The same two runs against every deliberately broken server of
//    test/conformance/support/doubles.ts and doubles-invariants.ts (the simulator behind a proxy with one injected
//    contract bug, naming the seed rule it breaks), in process: a double is found when its
//    rule fails; the rules that failed are listed.
// 3. The trace's memory (TRACE=N, e.g. TRACE=1000; run with `node --expose-gc`, as
//    `npm run bench:conformance` does): an in-process `--generate=N` run against the
//    simulator, its trace also fed to a second set of the invariants' watches; the heap
//    they hold at the end (after a GC, with them and without them), and the exchanges and
//    frames they were fed. TRACE alone skips parts 1 and 2.
// 4. Passive conformance (bench/passive.ts): the proxy's overhead per exchange and its memory.
// DOUBLES=0,3,5 runs only those doubles (DOUBLES=none: none); SKIP_CLEAN=1 skips part 1;
// PER_OPERATION (default 100) and SEED (default 7) set the generated runs. The load
// average is printed before and after (the machine may be shared: re-run when it is high).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { Report } from "../src/conformance/index.ts";
import { INVARIANTS } from "../src/conformance/judge/invariants/index.ts";
import { sinks } from "../src/conformance/target/sink.ts";
import { OPEN_WINDOWS } from "../src/conformance/run/simulator.ts";
import { benchPassive } from "./passive.ts";
import { DOUBLES as PROBED, type Double } from "../test/conformance/support/doubles.ts";
import { INVARIANT_DOUBLES } from "../test/conformance/support/doubles-invariants.ts";
import { startProxy } from "../test/conformance/support/proxy.ts";
import { failing, runFull, startSim } from "../test/conformance/support/run.ts";

/** Every broken server of the tests: those the probes were written for, then those only an invariant catches. */
const DOUBLES: Double[] = [...PROBED, ...INVARIANT_DOUBLES];

const PER_OPERATION = Number(process.env.PER_OPERATION ?? 100);
const SEED = Number(process.env.SEED ?? 7);
const TARGET = { plain: 15, generate: 60 };
// Generated runs send thousands of requests: the windows open as the command line opens them
// (OPEN_WINDOWS: the key's under the account's, the 8 generation slots kept).
const OPEN = { rateLimits: OPEN_WINDOWS };

const load = () => loadavg().map((l) => l.toFixed(2)).join(", ");

/** The CI setup of docs/conformance.md: the simulator's flags, and the suite's flags and environment. */
function ciSetup(): { mock: string[]; suite: string[]; env: Record<string, string> } {
  const guide = readFileSync(new URL("../docs/conformance.md", import.meta.url), "utf8");
  const section = guide.slice(guide.indexOf("### Against the simulator in CI"));
  const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!yaml) throw new Error("docs/conformance.md has no yaml block under \"Against the simulator in CI\"");
  const text = yaml.replace(/\\\n\s*/g, " ");
  const words = (line: string | undefined, after: string) => (line ?? "").slice(line!.indexOf(after) + after.length).replace(/&.*$/, "").trim().split(/\s+/).filter(Boolean);
  const mock = words(/npx generation-hub mock .*/.exec(text)?.[0], "npx generation-hub mock");
  const suite = words(/npx generation-hub conformance .*/.exec(text)?.[0], "npx generation-hub conformance");
  const env = Object.fromEntries([...text.matchAll(/^\s+(HUB_[A-Z_]+): (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  if (mock.length === 0 || suite.length === 0 || !env.HUB_BASE_URL) throw new Error("the CI setup of docs/conformance.md could not be read");
  return { mock, suite, env };
}

/** The simulator's command line on a free port (the docs' port replaced), until stopped; its address once it listens. */
async function startMock(flags: string[]): Promise<{ url: string; stop(): void }> {
  const args = flags.map((f, i) => (flags[i - 1] === "--port" ? "0" : f));
  const entry = "import('./src/simulator/cli.ts').then((m) => m.runMock(process.argv.slice(1), { program: 'generation-hub mock' }))";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "-e", entry, "--", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the simulator exited (${code}) before it listened:\n${out}`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

interface Timed {
  wallSeconds: number;
  suiteSeconds: number;
  failed: string[];
  requests: number;
  waited: number;
  exit: number | null;
}

/** `generation-hub conformance` as the guide runs it, against `url`: its wall time (its start included) and what it found. */
function command(url: string, args: string[], env: Record<string, string>): Promise<Timed> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/conformance/main.ts", "--json", ...args], { env: { ...process.env, ...env, HUB_BASE_URL: url }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (exit) => {
      const wallSeconds = (Date.now() - started) / 1000;
      try {
        const report = JSON.parse(stdout) as Report;
        resolve({ wallSeconds, suiteSeconds: report.durationMs / 1000, failed: failing(report), requests: report.requests.total, waited: report.requests.waitedSeconds, exit });
      } catch {
        reject(new Error(`the suite printed no report (exit ${exit}):\n${stderr.slice(-2000)}`));
      }
    });
  });
}

/** One run of the guide's command against a fresh simulator started as the guide starts it. */
async function againstMock(args: string[]): Promise<Timed> {
  const ci = ciSetup();
  const mock = await startMock(ci.mock);
  try {
    return await command(mock.url, args, ci.env);
  } finally {
    mock.stop();
  }
}

/** `args` without the flags named (each with its value) and the words `drop` matches. */
function without(args: string[], withValue: string[], drop: RegExp): string[] {
  return args.filter((a, i) => !withValue.includes(a) && !withValue.includes(args[i - 1]!) && !drop.test(a));
}

function timed(name: string, t: Timed, reference: number): string {
  const met = t.wallSeconds <= reference ? "yes" : "NO";
  const found = t.failed.length ? ` (${t.failed.join(", ")})` : "";
  return `  ${name.padEnd(30)} ${t.wallSeconds.toFixed(1).padStart(6)} s  <= ${String(reference).padStart(2)} s: ${met.padEnd(3)}  suite ${t.suiteSeconds.toFixed(1)} s, ${t.requests} requests, waited ${t.waited} s, false failures ${t.failed.length}${found}`;
}

interface Outcome {
  failed: string[];
  seconds: number;
  errors: number;
}

async function against(d: Double, generate: boolean): Promise<Outcome> {
  const sim = await startSim({ ...d.simulator, ...(generate ? OPEN : {}) });
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
  return `${found ? "yes" : "NO "} ${o.seconds.toFixed(1).padStart(5)} s ${[found ? d.rule : "", ...others].filter(Boolean).join(" ") || "-"}`;
}

/** Part 3: what the invariants hold after an in-process `--generate=perOperation` run. */
async function traceMemory(perOperation: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("TRACE needs node --expose-gc (npm run bench:conformance passes it)");
  const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
  console.log(`\nThe trace's memory: an in-process --generate=${perOperation} --seed ${SEED} run against the simulator (load average ${load()}):`);
  const sim = await startSim(OPEN);
  try {
    let watches = INVARIANTS.map((invariant) => invariant.watch());
    let exchanges = 0;
    let frames = 0;
    const counted = { exchange: () => void exchanges++, frame: () => void frames++ };
    const started = Date.now();
    const report = await runFull(sim, sim.url, { quick: true, generate: { perOperation, seed: SEED } }, { trace: sinks(counted, ...watches) });
    const withWatches = heap();
    const findings = watches.flatMap((w) => w.findings());
    watches = [];
    const without = heap();
    console.log(`  ${exchanges} exchanges and ${frames} frames in ${((Date.now() - started) / 1000).toFixed(0)} s; rules failed: ${failing(report).join(" ") || "none"}; the invariants' findings: ${findings.length} (${findings.filter((f) => !f.held).length} failures)`);
    console.log(`  the ${INVARIANTS.length} invariants' watches hold ${((withWatches - without) / 1024).toFixed(0)} KiB after the run (heap ${(withWatches / 2 ** 20).toFixed(1)} MiB with them, ${(without / 2 ** 20).toFixed(1)} MiB without); load average ${load()}`);
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(`Conformance suite benchmark, Node ${process.version}; load average before: ${load()}`);
  if (process.env.TRACE) return traceMemory(Number(process.env.TRACE));
  let problems = 0;
  const ci = ciSetup();

  if (!process.env.SKIP_CLEAN) {
    console.log(`\nThe standalone simulator as docs/conformance.md starts it for CI (generation-hub mock ${ci.mock.join(" ")}), and the suite as it runs it (${ci.suite.join(" ")}, the command's start included):`);
    // The guide's flags without its generated inputs and its report file: the default run; then with them, at this bench's size and seed.
    const base = without(ci.suite, ["--seed", "--junit", "--har"], /^--generate/);
    const plain = await againstMock(base);
    console.log(timed("default run", plain, TARGET.plain));
    const gen = await againstMock([...base, `--generate=${PER_OPERATION}`, "--seed", String(SEED)]);
    console.log(timed(`--generate=${PER_OPERATION} --seed ${SEED}`, gen, TARGET.generate));
    problems += plain.failed.length + gen.failed.length;
    console.log(`  load average: ${load()}`);
  }

  const chosen = process.env.DOUBLES === "none" ? [] : process.env.DOUBLES ? process.env.DOUBLES.split(",").map(Number) : DOUBLES.map((_, i) => i);
  if (chosen.length === 0) return void (process.exitCode = problems > 0 ? 1 : 0);
  console.log(`\nBroken servers (${chosen.length} of ${DOUBLES.length}), in process: the default run, then --generate=${PER_OPERATION} --seed ${SEED} with the stateful walk (--quick, writes, spending, a second account, role keys, two keys with fewer scopes, a site session, OAuth auto-consent):`);
  const width = Math.max(...chosen.map((i) => DOUBLES[i]!.title.length));
  console.log(`  ${"#".padStart(2)}  ${"area".padEnd(16)} ${"rule".padEnd(8)} ${"bug".padEnd(width)}  ${"default run: found, time, rules failed".padEnd(44)}  --generate=${PER_OPERATION}: found, time, rules failed`);
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
    // The table's own claim: found by the default run, or only with generated inputs (unless they cannot meet it).
    const missed = (d.found === "default" && !foundPlain) || (!foundGen && !d.notWithGenerate);
    if (missed) problems++;
    console.log(`  ${String(i).padStart(2)}  ${d.area.padEnd(16)} ${d.rule.padEnd(8)} ${d.title.padEnd(width)}  ${cell(d, plain).padEnd(44)}  ${cell(d, gen)}${missed ? "   <- expected found" : !foundGen && d.notWithGenerate ? `   (${d.notWithGenerate})` : ""}${plain.errors + gen.errors ? `   (${plain.errors + gen.errors} check error(s))` : ""}`);
  }
  const n = chosen.length;
  console.log(`\nDetected: ${byDefault} of ${n} by the default run, ${byGenerate} of ${n} with generated inputs and the stateful walk (${chosen.filter((i) => DOUBLES[i]!.found === "generate").length} of them need generation; ${chosen.filter((i) => DOUBLES[i]!.notWithGenerate).length} cannot be met by it).`);
  console.log(`Time against the broken servers: ${seconds.plain.toFixed(0)} s for the default runs (${(seconds.plain / n).toFixed(1)} s each; reference <= ${TARGET.plain} s), ${seconds.generate.toFixed(0)} s with --generate=${PER_OPERATION} (${(seconds.generate / n).toFixed(1)} s each; reference <= ${TARGET.generate} s).`);
  console.log(`Load average after: ${load()}`);
  process.exitCode = problems > 0 ? 1 : 0;
}

await main();
// 4. Passive conformance's overhead per exchange and memory (bench/passive.ts; SKIP_PASSIVE=1 skips it, as TRACE does).
if (!process.env.SKIP_PASSIVE && !process.env.TRACE) await benchPassive();
