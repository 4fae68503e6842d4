// Passive judging as the library offers it: a proxy in front of a server that judges the
// traffic through it until stopped (`startConformanceProxy`), and a recorded HAR file judged
// offline (`judgeHar`). Both send no request of their own and report in the shape of an
// active run (renderTable, renderJson, renderJunit, renderHar write them).
import { readHar } from "../../target/passive/har.ts";
import { startPassiveProxy, type ProxyCounts } from "../../target/passive/proxy.ts";
import { OPTION_DEFAULTS, optionRow } from "../options.ts";
import type { Report } from "../runner.ts";
import { PassiveSession } from "./session.ts";

/** What passive judging takes besides its traffic. */
export interface PassiveOptions {
  /** Most bytes of one answer (of one event-stream frame) read for the judge (default 16 MiB); the client gets every byte whatever this is. */
  maxAnswerBytes?: number;
  /** Only these rule ids or prefixes are judged. */
  only?: string[];
  /** A floor for the share of rules the traffic exercised, in percent (the report's `coverage.rules.met`). */
  minCoverage?: number;
  /** Called with a line per finding as it happens (secrets masked; the first 20 different findings of each rule). */
  onFinding?: (line: string) => void;
  /** Called with a line per exchange (secrets masked). */
  log?: (line: string) => void;
}

export interface ConformanceProxyOptions extends PassiveOptions {
  /** The server to forward to (its base address, without `/v1`). */
  baseUrl: string;
  /** The port to listen on (default 0: a free one; the address is `url`). */
  port?: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** Send the server its own Host and rewrite its absolute links to the proxy's (a server behind another name). */
  rewriteLinks?: boolean;
  /** Host names the proxy answers besides this machine's (`name`, `.domain`, `*`). */
  allowedHosts?: string[];
}

export interface ConformanceProxy {
  /** The proxy's address: point the client here. */
  url: string;
  /** What the proxy counted so far. */
  counts: ProxyCounts;
  /** Stops the proxy (open streams are ended) and reports everything it judged. */
  stop(extra?: { command?: { line: string; exitCode: number | null; signal?: string } }): Promise<Report>;
}

/** Checks a number option the way the command line's table does (a RangeError naming it). */
function checked(options: PassiveOptions): number {
  const value = options.maxAnswerBytes ?? OPTION_DEFAULTS.maxAnswerBytes;
  const problem = optionRow("max-answer-bytes").kind.problem?.(value as never);
  if (problem) throw new RangeError(`maxAnswerBytes (--max-answer-bytes) ${problem}`);
  return value;
}

function sessionOf(options: PassiveOptions, target: string): PassiveSession {
  return new PassiveSession({ target, maxAnswerBytes: checked(options), only: options.only, minCoverage: options.minCoverage, finding: options.onFinding, log: options.log });
}

/** Starts the passive proxy in front of `options.baseUrl`: every answer through it is judged, until `stop()`. */
export async function startConformanceProxy(options: ConformanceProxyOptions): Promise<ConformanceProxy> {
  const session = sessionOf(options, options.baseUrl);
  const proxy = await startPassiveProxy({ upstream: options.baseUrl, port: options.port ?? 0, host: options.host, maxAnswerBytes: checked(options), rewriteLinks: options.rewriteLinks, allowedHosts: options.allowedHosts, sink: session.sink });
  let stopped: Promise<Report> | undefined;
  return {
    url: proxy.url,
    counts: proxy.counts,
    stop: (extra = {}) =>
      (stopped ??= proxy.close().then(() => session.report({ source: "proxy", listen: proxy.url, upstream: options.baseUrl, proxy: { ...proxy.counts }, ...extra }))),
  };
}

/**
 * Judges a recorded HAR 1.2 log (its text or its parsed object). `baseUrl`: the API's
 * address in the recording (only its entries are API exchanges); without it, the `/v1`,
 * `/oauth/` and `/.well-known/` paths of any origin are. `file`: the name the report gives it.
 */
export function judgeHar(har: string | object, options: PassiveOptions & { baseUrl?: string; file?: string } = {}): Report {
  const file = options.file ?? "a HAR log";
  const session = sessionOf(options, options.baseUrl ?? file);
  const read = readHar(har, session.sink, { maxAnswerBytes: checked(options), apiBase: options.baseUrl });
  return session.report({ source: "har", file, ...(options.baseUrl ? { upstream: options.baseUrl } : {}), har: read });
}
