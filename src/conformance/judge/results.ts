// What the suite found, per seed rule. Every observation names a rule of
// docs/seed-rules.yaml by its id (an unknown id throws: the suite never invents a
// second numbering). A rule's verdict: `fail` when any observation failed, `pass` when
// at least one held and none failed, otherwise `n/a` with the reasons it was not
// exercised (not observable from outside, needs a flag or a key, not checked).
import { seedRule, seedRules, type SeedRule } from "../../contract/index.ts";
import { UNCHECKED } from "./unchecked.ts";
import type { Cited } from "../target/exchange.ts";
import { curlLine, maskExchange, type ExchangeRecord, type MaskedExchange } from "../target/record.ts";
import { Masker } from "../target/secrets.ts";

export type Verdict = "pass" | "fail" | "n/a";

export interface Failure {
  message: string;
  /** The request id of the answer at fault (as the server echoed it, else as sent). */
  requestId?: string;
  /** `METHOD /path -> status` of the answer at fault. */
  request?: string;
  /** The operation of the contract it answered: `readWhoami (GET /v1/whoami)`. */
  operation?: string;
  /** A copy-paste reproduction, secrets masked (`$HUB_API_KEY`). */
  curl?: string;
  /** Where the exchange is in `Report.exchanges` (and in the HAR file). */
  exchange?: number;
  /**
   * The requests that led to it, in order (a stateful sequence: the object created, the
   * links followed, the delete), each with its reproduction.
   */
  steps?: Step[];
}

/** One request of the sequence that led to a failure. */
export interface Step {
  /** What the request was for: `submitGeneration`, `link ReportGeneration`, ... */
  step: string;
  /** `METHOD /path -> status`. */
  request: string;
  requestId?: string;
  curl?: string;
  exchange?: number;
}

export interface RuleRow {
  id: string;
  section: string;
  rule: string;
  observable: boolean;
  verdict: Verdict;
  /** Why the rule is `n/a`, or which part of it was not exercised when it passed. */
  reason?: string;
  /** Number of observations that held. */
  passes: number;
  failures: Failure[];
  notes: string[];
}

interface Tally {
  passes: number;
  failures: Failure[];
  skips: string[];
  notes: string[];
}

const MAX_FAILURES_PER_RULE = 20;

/** The reason of a rule `--only` left out. */
export const NOT_SELECTED = "not selected (--only)";

export class Results {
  #tallies = new Map<string, Tally>();
  #exchanges = new Map<ExchangeRecord, number>();
  /** The exchanges failures cite, secrets masked, in the order first cited. */
  readonly exchanges: MaskedExchange[] = [];

  /**
   * `masker` hides the run's secrets in the reproductions of failures; `only` (rule ids or
   * prefixes) are the rules judged: an observation of another rule is not recorded.
   */
  constructor(
    readonly masker: Masker = new Masker([]),
    readonly only?: readonly string[],
  ) {}

  /**
   * The bytes of text the results hold: every failure (its message, curl lines, steps), and
   * every exchange they cite (as the report keeps it, and its record). What a run keeps of
   * answers, for the test that holds it to a bound whatever the number of requests.
   */
  keptBytes(): number {
    let bytes = 0;
    for (const t of this.#tallies.values()) bytes += JSON.stringify(t).length;
    for (const x of this.exchanges) bytes += JSON.stringify(x).length;
    for (const r of this.#exchanges.keys()) bytes += r.body.text.length + (typeof r.sent.body === "string" ? r.sent.body.length : (r.sent.body?.length ?? 0)) + JSON.stringify(r.headers).length;
    return bytes;
  }

  /** Whether the rule is among those the run judges (`--only`). */
  selected(id: string): boolean {
    return !this.only?.length || onlyMatches(id, this.only);
  }

  #tally(id: string): Tally {
    seedRule(id); // throws on an id the registry does not have
    let t = this.#tallies.get(id);
    if (!t) {
      t = { passes: 0, failures: [], skips: [], notes: [] };
      this.#tallies.set(id, t);
    }
    return t;
  }

  /** An observation of the rule that held. */
  pass(id: string, note?: string): void {
    const t = this.#tally(id);
    if (!this.selected(id)) return;
    t.passes++;
    if (note) this.note(id, note);
  }

  /** An observation of the rule that failed. */
  fail(id: string, message: string, cited?: Cited): void {
    const t = this.#tally(id);
    if (!this.selected(id) || t.failures.length >= MAX_FAILURES_PER_RULE) return;
    if (t.failures.some((f) => f.message === message && f.request === cited?.request)) return;
    const failure: Failure = { message, ...(cited?.requestId ? { requestId: cited.requestId } : {}), ...(cited?.request ? { request: cited.request } : {}), ...(cited?.operation ? { operation: cited.operation } : {}) };
    if (cited?.exchange) {
      failure.curl = curlLine(cited.exchange.sent, this.masker);
      failure.exchange = this.#keep(cited.exchange);
    } else if (cited?.sent) failure.curl = curlLine(cited.sent, this.masker);
    if (cited?.steps?.length) failure.steps = cited.steps.map(({ step, cited: s }) => this.#step(step, s));
    t.failures.push(failure);
  }

  #step(step: string, cited: Cited): Step {
    return {
      step,
      request: cited.request ?? "",
      ...(cited.requestId ? { requestId: cited.requestId } : {}),
      ...(cited.exchange ? { curl: curlLine(cited.exchange.sent, this.masker), exchange: this.#keep(cited.exchange) } : cited.sent ? { curl: curlLine(cited.sent, this.masker) } : {}),
    };
  }

  #keep(record: ExchangeRecord): number {
    let at = this.#exchanges.get(record);
    if (at === undefined) {
      at = this.exchanges.push(maskExchange(record, this.masker)) - 1;
      this.#exchanges.set(record, at);
    }
    return at;
  }

  /** Records that (part of) the rule was not exercised, and why. */
  skip(id: string, reason: string): void {
    const t = this.#tally(id);
    if (!t.skips.includes(reason)) t.skips.push(reason);
  }

  note(id: string, text: string): void {
    const t = this.#tally(id);
    if (!t.notes.includes(text)) t.notes.push(text);
  }

  /** Checks either held or failed: `check(ok, id, message)`. */
  expect(ok: boolean, id: string, message: string, cited?: Cited): boolean {
    if (ok) this.pass(id);
    else this.fail(id, message, cited);
    return ok;
  }

  failed(id: string): boolean {
    return (this.#tallies.get(id)?.failures.length ?? 0) > 0;
  }

  passes(id: string): number {
    return this.#tallies.get(id)?.passes ?? 0;
  }

  /** One row per seed rule, in the registry's order. */
  rows(): RuleRow[] {
    return seedRules().map((r) => this.#row(r));
  }

  #row(r: SeedRule): RuleRow {
    const t = this.#tallies.get(r.id) ?? { passes: 0, failures: [], skips: [], notes: [] };
    const base = { id: r.id, section: r.section, rule: r.rule, observable: r.observable, passes: t.passes, failures: t.failures, notes: t.notes };
    if (!this.selected(r.id)) return { ...base, verdict: "n/a", reason: NOT_SELECTED, notes: [] };
    if (t.failures.length > 0) return { ...base, verdict: "fail", ...(t.skips.length ? { reason: `partly not exercised: ${t.skips.join("; ")}` } : {}) };
    if (t.passes > 0) return { ...base, verdict: "pass", ...(t.skips.length ? { reason: `partly not exercised: ${t.skips.join("; ")}` } : {}) };
    let reason: string;
    if (!r.observable) reason = "not observable from outside a server (observable: false in the registry)";
    else if (t.skips.length > 0) reason = t.skips.join("; ");
    else reason = UNCHECKED[r.id] ? `not checked: ${UNCHECKED[r.id]}` : "not exercised in this run";
    return { ...base, verdict: "n/a", reason };
  }
}

/** Whether `--only` (ids or prefixes: `PAGE`, `EVT-9`, `SUB-`) selects the rule `id`. */
export function onlyMatches(id: string, only: readonly string[]): boolean {
  return only.some((o) => id === o || id.startsWith(`${o}-`) || (o.endsWith("-") && id.startsWith(o)));
}
