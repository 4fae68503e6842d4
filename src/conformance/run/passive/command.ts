// Passive mode on the command line: `--listen [HOST:]PORT --base-url URL [-- COMMAND ...]`
// (the proxy, until SIGINT or SIGTERM, `--duration`, or the end of the command it runs
// with the proxy up) and `--judge-har FILE`. A line per finding goes to stderr as it
// happens; the report is the CLI's to write. The command runs with the proxy's address in
// HUB_BASE_URL (its other variables as they are); its output goes to stderr, so stdout
// holds the report alone (`--json` can be piped).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { HarFormatError } from "../../target/passive/har.ts";
import { upstreamOf } from "../../target/passive/links.ts";
import { Usage, type CliRequest } from "../options.ts";
import type { Report } from "../runner.ts";
import { judgeHar, startConformanceProxy } from "./judge.ts";

/** The options of an active run that mean nothing in passive mode (it sends no request of its own). */
const ACTIVE_ONLY = ["apiKey", "otherApiKey", "keys", "scopedKeys", "session", "oauthToken", "oauth", "allowWrites", "allowSpend", "staticMock", "generate", "quick"] as const;

export interface PassiveOutcome {
  report: Report;
  /** The wrapped command's exit status (a signal's end counts as 1), when one ran. */
  commandStatus?: number;
}

/** `--listen` with or without a host: `4011`, `0.0.0.0:4011`, `[::1]:4011`. */
function listenAddress(text: string): { host?: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text.trim());
  const port = Number(m?.[2]);
  if (!m || port > 65535) throw new Usage(`--listen takes [HOST:]PORT (a port 0 to 65535, 0 for a free one), got ${JSON.stringify(text)}`);
  return { ...(m[1] ? { host: m[1].replace(/^\[|\]$/g, "") } : {}), port };
}

export async function runPassive(request: CliRequest, command: string[], log: (line: string) => void): Promise<PassiveOutcome> {
  const o = request.options;
  const cli = request.cli;
  const activeOnly = ACTIVE_ONLY.filter((k) => o[k] !== undefined);
  if (activeOnly.length > 0 || cli.prism || cli.prismMock) {
    throw new Usage(`passive mode (--listen, --judge-har) sends no request of its own: leave out ${[...activeOnly.map((k) => k), ...(cli.prism ? ["prism"] : []), ...(cli.prismMock ? ["prismMock"] : [])].join(", ")} (their flags are the active run's)`);
  }
  if (cli.listen !== undefined && cli.judgeHar !== undefined) throw new Usage("--listen and --judge-har are two passive modes: give one");
  const common = { maxAnswerBytes: o.maxAnswerBytes, only: o.only, minCoverage: o.minCoverage, onFinding: (line: string) => log(line), ...(cli.verbose ? { log } : {}) };

  if (cli.judgeHar !== undefined) {
    if (command.length > 0) throw new Usage("`-- COMMAND` runs a command with the passive proxy up: it goes with --listen, not --judge-har");
    let text: string;
    try {
      text = readFileSync(cli.judgeHar, "utf8");
    } catch (error) {
      throw new Usage(`--judge-har: ${cli.judgeHar} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    try {
      const report = judgeHar(text, { ...common, file: cli.judgeHar, ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}) });
      const h = report.passive!.har!;
      log(`judged ${cli.judgeHar}: ${h.exchanges} of ${h.entries} entries${Object.keys(h.skipped).length ? ` (skipped: ${Object.entries(h.skipped).map(([why, n]) => `${n} ${why}`).join("; ")})` : ""}`);
      return { report };
    } catch (error) {
      if (error instanceof HarFormatError) throw new Usage(`--judge-har: ${cli.judgeHar} is ${error.message.replace(/^not a HAR file/, "not a HAR file")}`);
      throw error;
    }
  }

  if (!o.baseUrl) throw new Usage("--listen needs --base-url (or HUB_BASE_URL): the server the proxy forwards to");
  const address = listenAddress(cli.listen!);
  try {
    upstreamOf(o.baseUrl);
  } catch (error) {
    throw new Usage(`--base-url ${o.baseUrl}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let proxy;
  try {
    proxy = await startConformanceProxy({ ...common, baseUrl: o.baseUrl, ...address, rewriteLinks: cli.rewriteLinks, allowedHosts: cli.allowedHosts });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Usage(`--listen ${cli.listen}: the proxy cannot listen there (${code ?? (error instanceof Error ? error.message : String(error))})`);
  }
  log(`passive proxy at ${proxy.url} in front of ${o.baseUrl}${cli.rewriteLinks ? " (the server's own Host sent, its links rewritten)" : " (the client's Host forwarded)"}: point the client there; it judges the answers and sends nothing of its own`);

  const stops: (() => void)[] = [];
  const stopped = new Promise<{ command?: { line: string; exitCode: number | null; signal?: string } }>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log(`${signal}: stopping the proxy`);
      resolve({});
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    stops.push(() => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    });
    if (cli.duration !== undefined) {
      const timer = setTimeout(() => resolve({}), cli.duration * 1000);
      stops.push(() => clearTimeout(timer));
    }
    if (command.length > 0) {
      // The program's name only: its arguments may carry a secret (a key in a header, a token in a URL).
      const line = `${command[0]!}${command.length > 1 ? " ..." : ""}`;
      log(`running ${line} with HUB_BASE_URL=${proxy.url}`);
      const child = spawn(command[0]!, command.slice(1), { stdio: ["inherit", 2, "inherit"], env: { ...process.env, HUB_BASE_URL: proxy.url } });
      child.on("error", (error) => resolve({ command: { line, exitCode: 127, signal: (error as NodeJS.ErrnoException).code ?? error.message } }));
      child.on("exit", (exitCode, signal) => resolve({ command: { line, exitCode, ...(signal ? { signal } : {}) } }));
      // A signal that stops the proxy stops the command too.
      stops.push(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      });
    }
  });
  const extra = await stopped;
  for (const stop of stops) stop();
  const report = await proxy.stop(extra);
  const c = extra.command;
  if (c) log(`${c.line} ended ${c.signal ? `by ${c.signal}` : `with exit status ${c.exitCode}`}`);
  return { report, ...(c ? { commandStatus: c.exitCode ?? 1 } : {}) };
}
