// What the suite found, per seed rule. Every observation names a rule of
// docs/seed-rules.yaml by its id (an unknown id throws: the suite never invents a
// second numbering). A rule's verdict: `fail` when any observation failed, `pass` when
// at least one held and none failed, otherwise `n/a` with the reasons it was not
// exercised (not observable from outside, needs a flag or a key, not checked).
import { seedRule, seedRules, type SeedRule } from "../contract/index.ts";
import { UNCHECKED } from "./unchecked.ts";

export type Verdict = "pass" | "fail" | "n/a";

export interface Failure {
  message: string;
  /** The request id of the answer at fault (as the server echoed it, else as sent). */
  requestId?: string;
  /** `METHOD /path -> status` of the answer at fault. */
  request?: string;
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

/** The part of an exchange a failure cites. */
export interface Cited {
  requestId?: string;
  request?: string;
}

interface Tally {
  passes: number;
  failures: Failure[];
  skips: string[];
  notes: string[];
}

const MAX_FAILURES_PER_RULE = 20;

export class Results {
  #tallies = new Map<string, Tally>();

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
    t.passes++;
    if (note) this.note(id, note);
  }

  /** An observation of the rule that failed. */
  fail(id: string, message: string, cited?: Cited): void {
    const t = this.#tally(id);
    if (t.failures.length >= MAX_FAILURES_PER_RULE) return;
    if (t.failures.some((f) => f.message === message && f.request === cited?.request)) return;
    t.failures.push({ message, ...(cited?.requestId ? { requestId: cited.requestId } : {}), ...(cited?.request ? { request: cited.request } : {}) });
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
    if (t.failures.length > 0) return { ...base, verdict: "fail", ...(t.skips.length ? { reason: `partly not exercised: ${t.skips.join("; ")}` } : {}) };
    if (t.passes > 0) return { ...base, verdict: "pass", ...(t.skips.length ? { reason: `partly not exercised: ${t.skips.join("; ")}` } : {}) };
    let reason: string;
    if (!r.observable) reason = "not observable from outside a server (observable: false in the registry)";
    else if (t.skips.length > 0) reason = t.skips.join("; ");
    else reason = UNCHECKED[r.id] ? `not checked: ${UNCHECKED[r.id]}` : "not exercised in this run";
    return { ...base, verdict: "n/a", reason };
  }
}
