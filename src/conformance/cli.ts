// The conformance suite's command line (`npm run conformance` here, `generation-hub
// conformance` from the dev-tools package): the suite against a server. The options are
// the table's (run/options.ts). Without a base address it starts the simulator and runs
// against it with its demo keys (run/simulator.ts). Exit status: 0 when no rule failed, 1
// otherwise, 2 on bad usage or when the run could not start.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ConformanceOptions } from "./facts/given.ts";
import { renderHar } from "./run/har.ts";
import { parseArgsOptions, readRequest, secretsOf, usageOf, Usage, withBareValues, type CliRequest } from "./run/options.ts";
import { startPrism } from "./run/prism.ts";
import { renderJson, renderJunit, renderTable } from "./run/render.ts";
import { runPassive } from "./run/passive/command.ts";
import { exitCode, runConformance, type Report } from "./run/runner.ts";
import { simulatorOptions, startOwnSimulator } from "./run/simulator.ts";
import { detectSimulatorControl } from "./target/control.ts";
import { Masker, type Secret } from "./target/secrets.ts";
import { ServerGone } from "./target/stops.ts";

/** How the command is started (for the usage text). */
export interface ConformanceCommand {
  /** The command as the user types it, e.g. `npm run conformance --` or `generation-hub conformance`. */
  program: string;
}

/** The target of the run, started here when the command line names none: the run's options, and what to close. */
async function target(request: CliRequest, log: (line: string) => void, cleanups: (() => Promise<void>)[]): Promise<ConformanceOptions> {
  const o = request.options;
  if (request.cli.prismMock) {
    if (o.baseUrl) throw new Usage("--prism-mock starts its own target; leave --base-url out");
    const mock = await startPrism("mock");
    cleanups.push(() => mock.close());
    log(`prism mock serving the document at ${mock.url}`);
    return { ...o, baseUrl: mock.url, apiKey: o.apiKey ?? "conformance-static-mock-key", staticMock: true };
  }
  if (o.baseUrl) {
    if (!o.apiKey) throw new Usage("--api-key (or HUB_API_KEY) is required with --base-url");
    const control = o.staticMock ? undefined : await detectSimulatorControl(o.baseUrl, o.apiKey, o.requestTimeoutMs);
    if (control) log(`${o.baseUrl} exposes the simulator's control interface (/_sim/): the suite moves its clock instead of waiting (it owns that simulator while it runs: other clients see its clock jump), and the sequences that cancel or delete a generation or revoke a key use it`);
    return { ...o, baseUrl: o.baseUrl, apiKey: o.apiKey, ...(control ? { control } : {}) };
  }
  if (o.apiKey) throw new Usage("--api-key without --base-url: give the server's address (or neither, to run against the simulator)");
  // The simulator with its demo keys; nothing real is spent, so everything is allowed. Its
  // documented conveniences stand in for a browser: OAuth auto-consent as the demo account,
  // a site session, and a published client ID metadata document.
  const sim = await startOwnSimulator(Boolean(o.generate));
  cleanups.push(() => sim.close());
  const given = await simulatorOptions(sim);
  log(`no --base-url: started the simulator at ${sim.url} with its demo keys and two keys with fewer scopes (writes and spending allowed), a site session and OAuth auto-consent`);
  return { ...o, ...given, baseUrl: sim.url, keys: { ...given.keys, ...o.keys }, scopedKeys: [...(o.scopedKeys ?? []), ...(given.scopedKeys ?? [])], oauth: { ...o.oauth, ...given.oauth } };
}

/** Writes the report as the command line asks: the table or JSON on stdout, JUnit and HAR files. */
function writeReport(report: Report, out: CliRequest["cli"], log: (line: string) => void): void {
  if (out.json) console.log(renderJson(report));
  else console.log(renderTable(report, { all: out.all, coverage: out.coverage, width: process.stdout.columns || 100 }));
  if (out.junit) {
    writeFileSync(out.junit, renderJunit(report));
    log(`JUnit report written to ${out.junit}`);
  }
  if (out.har) {
    writeFileSync(out.har, renderHar(report));
    log(`HAR file of ${report.exchanges.length} failing exchange(s) written to ${out.har}`);
  }
}

async function main(argv: string[], help: string, masked: (secrets: Secret[]) => void, log: (line: string) => void): Promise<number> {
  // `-- COMMAND ...`: what passive mode runs with its proxy up (never read as options).
  const end = argv.indexOf("--");
  const command = end < 0 ? [] : argv.slice(end + 1);
  const { values } = parseArgs({ args: withBareValues(end < 0 ? argv : argv.slice(0, end)), strict: true, options: parseArgsOptions() });
  const request = readRequest(values, process.env);
  // From here on, what the command prints itself is masked too (the run masks its own output).
  masked(secretsOf({ baseUrl: "", apiKey: "", ...request.options }));
  if (request.cli.help) {
    console.log(help);
    return 0;
  }
  if (request.cli.listen !== undefined || request.cli.judgeHar !== undefined) {
    // The environment's keys are the client's (an e2e suite's HUB_API_KEY, say), not the
    // proxy's: only the flags and HUB_BASE_URL are read (a key given as a flag is refused).
    const passive = readRequest(values, { HUB_BASE_URL: process.env.HUB_BASE_URL });
    const { report, commandStatus } = await runPassive(passive, command, log);
    writeReport(report, request.cli, log);
    const status = exitCode(report);
    return commandStatus !== undefined && commandStatus !== 0 ? Math.max(status, 1) : status;
  }
  if (command.length > 0) throw new Usage("`-- COMMAND` runs a command with the passive proxy up: give --listen too");
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const options = await target(request, log, cleanups);
    if (request.cli.prism) {
      const proxy = await startPrism("proxy", options.baseUrl);
      cleanups.push(() => proxy.close());
      options.viaUrl = proxy.url;
      log(`prism proxy at ${proxy.url} in front of ${options.baseUrl} (event streams go direct: Prism buffers them)`);
    }
    const report = await runConformance({ ...options, log: request.cli.verbose ? log : undefined, progress: log }, { prism: Boolean(request.cli.prism) });
    writeReport(report, request.cli, log);
    return exitCode(report);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}

/** Exits once stdout has taken everything written (a pipe is written asynchronously: exiting at once cuts a long JSON report). */
function exitAfterOutput(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.exit(code));
}

/**
 * Runs the suite with the command line `argv` and exits with its status. A usage error
 * prints the usage; anything else that stops the run prints one line (the stack only with
 * --verbose).
 */
export async function runConformanceCli(argv: string[], command: ConformanceCommand): Promise<void> {
  const help = usageOf(command.program);
  let masker = new Masker([]);
  const say = (text: string) => console.error(masker.text(text));
  try {
    exitAfterOutput(await main(argv, help, (secrets) => (masker = new Masker(secrets)), say));
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      // A stray word may be a secret given without its flag: it is not repeated.
      say(`conformance: ${(error as Error).message.replace(/^Unexpected argument '[^']*'/, "Unexpected argument (not repeated: it may be a secret)")}\n\n${help}`);
    } else if (error instanceof ServerGone) {
      say(`conformance: ${error.message}`);
    } else if (error instanceof Usage) {
      say(`conformance: ${error.message}\n(--help lists the options)`);
    } else {
      const verbose = argv.includes("--verbose");
      say(`conformance: the run could not complete: ${error instanceof Error ? (verbose ? error.stack : error.message) : String(error)}`);
    }
    process.exit(2);
  }
}
