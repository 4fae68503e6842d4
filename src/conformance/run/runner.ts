// Runs the checks of a run in the order their declarations give (plan.ts) against one
// server, skipping, with the reason, those whose flags or needed facts are missing, and
// gathers the report.
import { CHECKS } from "../checks/index.ts";
import type { Check } from "../facts/check.ts";
import type { GeneratedReport } from "../facts/generated.ts";
import type { ConformanceOptions } from "../facts/given.ts";
import { FACTS, isGathered } from "../facts/learnt.ts";
import { FactStore } from "../facts/store.ts";
import { AnswerJudge } from "../judge/answer-checks/index.ts";
import { INVARIANTS } from "../judge/invariants/index.ts";
import { PrismFindings, type PrismFinding } from "../judge/prism.ts";
import { Results, type RuleRow } from "../judge/results.ts";
import type { MaskedExchange } from "../target/record.ts";
import { Masker } from "../target/secrets.ts";
import { sinks, type ExchangeSink } from "../target/sink.ts";
import { KeyRefused, NoAnswer, RunStop, ServerGone } from "../target/stops.ts";
import { Target } from "../target/target.ts";
import { ruleCoverage, statusCoverage, type Coverage } from "./coverage.ts";
import { resolve, secretsOf } from "./options.ts";
import type { PassiveSummary } from "./passive/summary.ts";
import { planRun } from "./plan.ts";
import { CheckContext } from "../facts/check.ts";

export interface Report {
  target: string;
  startedAt: string;
  durationMs: number;
  mode: {
    writes: boolean;
    spend: boolean;
    staticMock: boolean;
    prism: boolean;
    otherAccount: boolean;
    roles: string[];
    /** Keys with fewer scopes given (`scopedKeys`). */
    scopedKeys: number;
    /** A site session was given (`--session-cookie`), with an allowed Origin or not. */
    session: "given" | "given without an Origin" | "not given";
    /** An OAuth access token was given (`--oauth-token`). */
    oauthToken: boolean;
    /** The caller declared that the server consents at once (`--oauth-auto-consent`). */
    oauthAutoConsent: boolean;
  };
  /** One row per seed rule, in the registry's order (with `only`, the others are n/a, not selected). */
  rows: RuleRow[];
  /** The rules chosen (`only`: ids or prefixes); without it, all. */
  only?: string[];
  /** Verdicts of the rules chosen. */
  summary: { pass: number; fail: number; notApplicable: number };
  requests: { total: number; byCredential: Record<string, number>; waitedSeconds: number };
  /** Set when the run stopped early (quota, a refused key, a server that stopped answering). */
  stopped?: string;
  /** What `prism proxy` reported (with `--prism`). */
  prism?: { findings: PrismFinding[]; responseViolations: number };
  /** Checks that threw (a defect of the suite or an answer it could not read). */
  errors: { check: string; message: string }[];
  /** Rules exercised (against `minCoverage`), and statuses seen per operation against those declared. */
  coverage: Coverage;
  /** The exchanges that failures cite (`Failure.exchange`), secrets masked: the HAR file's entries. */
  exchanges: MaskedExchange[];
  /** What the generated inputs sent and found (`generate`). */
  generated?: GeneratedReport;
  /** Passive judging (`--listen`, `--judge-har`): where the traffic came from and what of it was judged. */
  passive?: PassiveSummary;
}

export interface RunExtras {
  /** Set by the CLI when requests go through `prism proxy`. */
  prism?: boolean;
  /**
   * Fed every exchange and frame of the run too, after the run's own judges: the trace as
   * the invariants see it (unmasked: what the server answered; bench/conformance.ts
   * measures the invariants' memory with it).
   */
  trace?: ExchangeSink;
}

/**
 * Runs the checks against `options.baseUrl`. Everything that leaves the run (the report,
 * every progress and --verbose line, the error it rejects with) has its secrets masked.
 */
export async function runConformance(given: ConformanceOptions, extras: RunExtras = {}): Promise<Report> {
  const masker = new Masker(secretsOf(given));
  const mask = (line: string) => masker.text(line);
  const options: ConformanceOptions = {
    ...given,
    ...(given.log ? { log: (line) => given.log!(mask(line)) } : {}),
    ...(given.progress ? { progress: (line) => given.progress!(mask(line)) } : {}),
  };
  try {
    return masker.deep(await run(options, extras, masker));
  } catch (error) {
    if (error instanceof Error) {
      error.message = mask(error.message);
      if (error.stack) error.stack = mask(error.stack);
    }
    throw error;
  }
}

async function run(options: ConformanceOptions, extras: RunExtras, masker: Masker): Promise<Report> {
  const r = resolve(options);
  const results = new Results(masker, options.only);
  const labels = new Map<string, string>([[options.apiKey, "main"]]);
  if (options.otherApiKey) labels.set(options.otherApiKey, "other");
  for (const [role, key] of Object.entries(options.keys ?? {})) if (key) labels.set(key, role);
  (options.scopedKeys ?? []).forEach((key, i) => labels.set(key, `scoped-${i + 1}`));
  const judge = new AnswerJudge(results, r.staticMock);
  const prism = new PrismFindings();
  // A static mock keeps no state: what the invariants hold over many answers does not apply to it.
  const watches = r.staticMock ? [] : INVARIANTS.map((invariant) => invariant.watch());
  // Every exchange and frame of the run goes to these, in this order (a trace recorder joins here: issue 24).
  const sink = sinks(prism, judge, ...watches, ...(extras.trace ? [extras.trace] : []));
  const clockMoves = typeof options.control?.advanceClock === "function";
  const target = new Target({
    baseUrl: r.baseUrl,
    viaUrl: options.viaUrl,
    apiKey: options.apiKey,
    labels,
    sink,
    masker,
    staticMock: r.staticMock,
    reserve: r.reserve,
    maxWaitSeconds: r.maxWaitSeconds,
    requestTimeoutMs: r.requestTimeoutMs,
    maxAnswerBytes: r.maxAnswerBytes,
    // A clock the caller controls is moved (the suite owns it while it runs); else time is slept.
    wait: (s) => (clockMoves ? options.control!.advanceClock!(s).then(() => undefined) : new Promise((res) => setTimeout(res, s * 1000))),
    clockMoves,
    log: options.log,
    progress: clockMoves ? undefined : options.progress,
  });
  const facts = new FactStore();
  const ctx = new CheckContext(r, target, results, judge.seen, facts);
  const started = Date.now();
  const errors: Report["errors"] = [];
  let stopped: string | undefined;
  const generatedOnly: string[] = [];
  /** The facts a check provides and did not settle are missing, for `why`. */
  const settle = (check: Check, why: string) => {
    for (const f of check.provides ?? []) if (!isGathered(f) && !facts.settled(f)) facts.missing(f, why);
  };

  try {
    for (const check of planRun(CHECKS, options.only)) {
      if (stopped) {
        ctx.skip(check.rules, stopped);
        settle(check, stopped);
        continue;
      }
      const needs = check.needs ?? {};
      if (needs.generate && !r.generate) {
        generatedOnly.push(...check.rules);
        settle(check, "it needs generated inputs (--generate)");
        continue;
      }
      const missing = (needs.facts ?? []).find((f) => facts.value(f) === undefined);
      const why =
        r.staticMock && needs.stateful !== false ? "the target is a static mock (--static-mock): this needs a server that keeps state"
        : needs.spend && !r.spend ? "needs --allow-spend (it submits generations that cost credits)"
        : needs.writes && !r.writes ? "needs --allow-writes (it changes state on the account)"
        : needs.other && !options.otherApiKey ? "needs a second account's key (--other-api-key)"
        : missing ? `needs ${FACTS[missing]}: ${facts.why(missing)}`
        : undefined;
      if (why) {
        ctx.skip(check.rules, why);
        settle(check, `"${check.name}" did not run: ${why}`);
        continue;
      }
      options.log?.(`${check.name}`);
      ctx.running(check);
      try {
        await check.run(ctx);
      } catch (error) {
        // A server never reached: there is nothing to report, only why (said once).
        if (error instanceof ServerGone && target.answered === 0) throw error;
        if (error instanceof RunStop) {
          stopped = error.message;
          // What the check had left to judge is n/a for the same reason (a refused key was judged already).
          if (!(error instanceof KeyRefused)) ctx.skip(check.rules, stopped);
          // A server that went away during the run fails it.
          if (error instanceof ServerGone) errors.push({ check: check.name, message: error.message });
        } else if (error instanceof NoAnswer) {
          ctx.fail(error.rule ?? check.rules[0]!, error.message, { cite: { request: error.request, ...(error.sent ? { sent: error.sent } : {}) } });
          errors.push({ check: check.name, message: error.message });
        } else {
          const message = error instanceof Error ? error.message : String(error);
          errors.push({ check: check.name, message });
          ctx.fail(check.rules[0]!, `the check "${check.name}" could not complete: ${message}`);
        }
      } finally {
        ctx.running(undefined);
        settle(check, stopped ?? `"${check.name}" did not learn it`);
      }
    }
  } finally {
    target.closeAll();
  }
  // What the invariants found over the whole run.
  for (const f of watches.flatMap((w) => w.findings())) {
    if (f.held) results.pass(f.rule);
    else results.fail(f.rule, f.message, f.cite);
  }
  // A rule that only generated inputs would have exercised says so.
  for (const id of generatedOnly) if (results.passes(id) === 0 && !results.failed(id)) results.skip(id, "exercised by generated inputs only (--generate)");

  if (r.staticMock) {
    for (const rule of ["EP-2", "ENV-4", "LIM-3"]) results.skip(rule, "echo and countdown are not checked against a static mock");
  }
  const rows = results.rows();
  const judged = rows.filter((row) => results.selected(row.id));
  const findings = prism.findings;
  return {
    target: r.baseUrl,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    mode: {
      writes: r.writes,
      spend: r.spend,
      staticMock: r.staticMock,
      prism: Boolean(extras.prism),
      otherAccount: facts.value("secondAccount") !== undefined,
      roles: Object.keys(options.keys ?? {}).filter((k) => options.keys?.[k as keyof typeof options.keys]),
      scopedKeys: options.scopedKeys?.length ?? 0,
      session: options.session ? (options.session.origin ? "given" : "given without an Origin") : "not given",
      oauthToken: Boolean(options.oauthToken),
      oauthAutoConsent: Boolean(options.oauth?.autoConsent),
    },
    rows,
    ...(options.only?.length ? { only: options.only } : {}),
    summary: {
      pass: judged.filter((x) => x.verdict === "pass").length,
      fail: judged.filter((x) => x.verdict === "fail").length,
      notApplicable: judged.filter((x) => x.verdict === "n/a").length,
    },
    requests: { total: target.requestCount, byCredential: Object.fromEntries(target.counts), waitedSeconds: target.waitedSeconds },
    ...(stopped ? { stopped } : {}),
    ...(extras.prism ? { prism: { findings, responseViolations: findings.filter((f) => f.location[0] === "response").length } } : {}),
    errors,
    coverage: { rules: ruleCoverage(rows, options.minCoverage), statuses: statusCoverage(judge.seen.statuses) },
    exchanges: results.exchanges,
    ...(facts.value("generated") ? { generated: facts.value("generated") } : {}),
  };
}

/** Exit status for a report: 1 on any failed rule, any check error, a Prism response violation, or coverage under its floor. */
export function exitCode(report: Report): number {
  if (report.summary.fail > 0 || report.errors.length > 0) return 1;
  if (!report.coverage.rules.met) return 1;
  if (report.prism && report.prism.responseViolations > 0) return 1;
  return 0;
}
