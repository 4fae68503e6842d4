// One passive judging (a proxy's traffic, a HAR file): the masker, the results, and the
// sinks an active run feeds (the answer checks' judge, every invariant's watch), behind the
// passive judge (judge/passive.ts); and the report at the end, in the active run's shape
// (the same renderers write it), with what the traffic was. Everything it keeps is bounded
// whatever the length of the traffic: the judge's and the results' bounds, the
// credentials' request counts (MAX_COUNTED, the rest counted together), and the invariants'
// watches, which keep bounded state by design.
import { AnswerJudge } from "../../judge/answer-checks/index.ts";
import { INVARIANTS } from "../../judge/invariants/index.ts";
import { PassiveJudge, PassiveResults } from "../../judge/passive.ts";
import type { Cited, Exchange } from "../../target/exchange.ts";
import type { Seen, TrafficSink } from "../../target/passive/traffic.ts";
import { Masker } from "../../target/secrets.ts";
import { sinks } from "../../target/sink.ts";
import type { Frame } from "../../target/stream.ts";
import { ruleCoverage, statusCoverage } from "../coverage.ts";
import type { Report } from "../runner.ts";
import { refusedInput } from "./refused-input.ts";
import type { PassiveSummary } from "./summary.ts";

/** Credentials counted apart in the report; the rest are counted together. */
const MAX_COUNTED = 50;
/** Credentials obtained from cited exchanges masked by value (besides every one masked by where it sits). */
const REMEMBERED_SECRETS = 1_000;

export interface PassiveSettings {
  /** What the report names as its target (the server behind the proxy, or the HAR file). */
  target: string;
  /** Most bytes of one answer (of one frame) read. */
  maxAnswerBytes: number;
  /** Only these rule ids or prefixes are judged. */
  only?: string[];
  /** A floor for the share of rules exercised. */
  minCoverage?: number;
  /** A line per finding, as it happens (masked). */
  finding?: (line: string) => void;
  /** A line per exchange (masked): `--verbose`. */
  log?: (line: string) => void;
}

export class PassiveSession {
  readonly masker = new Masker([], { remember: REMEMBERED_SECRETS });
  readonly results: PassiveResults;
  readonly startedAt = Date.now();
  /** Where the traffic goes. */
  readonly sink: TrafficSink;
  readonly #answers: AnswerJudge;
  readonly #watches = INVARIANTS.map((invariant) => invariant.watch());
  readonly #counts = new Map<string, number>();
  #total = 0;

  constructor(private readonly settings: PassiveSettings) {
    this.results = new PassiveResults(this.masker, settings.only, settings.finding ? (rule, message, cited) => settings.finding!(this.masker.text(findingLine(rule, message, cited))) : undefined);
    this.#answers = new AnswerJudge(this.results, false);
    const judge = new PassiveJudge(sinks(this.#answers, ...this.#watches), this.#answers.seen, this.results, refusedInput);
    this.sink = {
      exchange: (ex: Exchange, seen: Seen) => {
        this.#count(ex.label);
        settings.log?.(this.masker.text(`  ${ex.method} ${ex.path} -> ${ex.status}${seen.bare ? " (not an API request: the trace only)" : seen.bodyUnknown ? ` (body not judged: ${seen.bodyUnknown})` : ""} [${ex.label}]`));
        judge.exchange(ex, seen);
      },
      frame: (frame: Frame, opened: Exchange) => judge.frame(frame, opened),
      overflow: (opened: Exchange, bytes: number) => judge.overflow(opened, bytes),
    };
  }

  #count(label: string): void {
    this.#total++;
    const key = this.#counts.has(label) || this.#counts.size < MAX_COUNTED ? label : "other credentials";
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
  }

  /** The report of everything judged so far; the invariants say what they found over it. */
  report(summary: Omit<PassiveSummary, "judged">): Report {
    for (const f of this.#watches.flatMap((w) => w.findings())) {
      if (f.held) this.results.pass(f.rule);
      else this.results.fail(f.rule, f.message, f.cite);
    }
    this.results.countFailures();
    const rows = this.results.rows();
    const judged = rows.filter((row) => this.results.selected(row.id));
    const report: Report = {
      target: this.settings.target,
      startedAt: new Date(this.startedAt).toISOString(),
      durationMs: Date.now() - this.startedAt,
      mode: { writes: false, spend: false, staticMock: false, prism: false, otherAccount: false, roles: [], scopedKeys: 0, session: "not given", oauthToken: false, oauthAutoConsent: false },
      rows,
      ...(this.settings.only?.length ? { only: this.settings.only } : {}),
      summary: {
        pass: judged.filter((x) => x.verdict === "pass").length,
        fail: judged.filter((x) => x.verdict === "fail").length,
        notApplicable: judged.filter((x) => x.verdict === "n/a").length,
      },
      requests: { total: this.#total, byCredential: Object.fromEntries(this.#counts), waitedSeconds: 0 },
      errors: [],
      coverage: { rules: ruleCoverage(rows, this.settings.minCoverage), statuses: statusCoverage(this.#answers.seen.statuses) },
      exchanges: this.results.exchanges,
      passive: { ...summary, judged: this.results.tally },
    };
    return this.masker.deep(report);
  }
}

/** `FAIL EP-2  X-Request-Id … [readAccount (GET /v1/me): GET /v1/me -> 200, request id …]` */
function findingLine(rule: string, message: string, cited?: Cited): string {
  const request = cited?.request ? (cited.operation ? `${cited.operation}: ${cited.request}` : cited.request) : undefined;
  const where = [request, cited?.requestId ? `request id ${cited.requestId}` : undefined].filter(Boolean).join(", ");
  return `FAIL ${rule.padEnd(8)} ${message}${where ? ` [${where}]` : ""}`;
}
