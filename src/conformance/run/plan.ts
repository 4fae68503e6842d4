// The order of a run, from the checks' declarations alone (facts/check.ts): no list is kept
// in order by hand. A check runs after the checks that provide the facts it needs or uses,
// and after every other check of its phase or an earlier one that uses a fact it alters; `when` puts it first, last,
// after time passes (days of it, on a clock the caller moves) or over the run; among the checks ready to run, one that
// changes nothing goes before one that writes, which goes before one that spends (each sees
// the account as little changed by the run as its facts allow), and then by name. The same
// checks give the same order, whatever order the registry lists them in. With `--only`, the
// checks of the rules chosen run, with those that `always` run and those that provide a
// fact they need.
import type { Check, When } from "../facts/check.ts";
import { FACTS, type AnyFact } from "../facts/learnt.ts";
import { onlyMatches } from "../judge/results.ts";

const PHASES: readonly (When | "main")[] = ["first", "main", "last", "after time passes", "over the run"];

const phaseOf = (c: Check) => PHASES.indexOf(c.when ?? "main");
const workOf = (c: Check) => (c.needs?.spend ? 2 : c.needs?.writes ? 1 : 0);

/** The facts a check waits for: those it needs and those it uses. */
function waitsFor(check: Check): readonly AnyFact[] {
  return [...(check.needs?.facts ?? []), ...(check.needs?.uses ?? [])];
}

/** The checks that provide each fact. */
export function providersOf(checks: readonly Check[]): Map<AnyFact, Check[]> {
  const out = new Map<AnyFact, Check[]>();
  for (const c of checks) for (const f of c.provides ?? []) out.set(f, [...(out.get(f) ?? []), c]);
  return out;
}

/**
 * The checks `check` runs after: the providers of what it waits for, and the other users of
 * what it alters (those of its phase or an earlier one: a check of a later phase takes the
 * fact as the alterer left it, a file moved, say, when days have passed).
 */
function before(check: Check, runs: ReadonlySet<Check>, providers: ReadonlyMap<AnyFact, Check[]>): { check: Check; fact: AnyFact }[] {
  const out: { check: Check; fact: AnyFact }[] = [];
  for (const fact of waitsFor(check)) for (const p of providers.get(fact)!) if (p !== check && runs.has(p)) out.push({ check: p, fact });
  for (const fact of check.alters ?? []) {
    for (const user of runs) if (user !== check && waitsFor(user).includes(fact) && !(user.alters ?? []).includes(fact) && phaseOf(user) <= phaseOf(check)) out.push({ check: user, fact });
  }
  return out;
}

/** Whether `--only` chose the check (any of its rules). */
function chosen(check: Check, only: readonly string[] | undefined): boolean {
  return !only?.length || check.rules.some((id) => onlyMatches(id, only));
}

/**
 * The checks a run runs, in order. Throws on declarations that cannot be ordered: a fact
 * no check provides, a circle of facts, or a check that waits for one of a later `when`.
 */
export function planRun(checks: readonly Check[], only?: readonly string[]): Check[] {
  const providers = providersOf(checks);
  for (const c of checks) {
    for (const f of waitsFor(c)) if (!providers.has(f)) throw new Error(`the check "${c.name}" waits for ${f} (${FACTS[f]}), which no check provides`);
  }
  // What runs: the checks chosen, those that always run, and (transitively) the providers of what they need.
  const runs = new Set(checks.filter((c) => c.always || chosen(c, only)));
  for (const c of [...runs]) {
    const needed = [...(c.needs?.facts ?? [])];
    for (let f = needed.shift(); f !== undefined; f = needed.shift()) {
      for (const p of providers.get(f)!) {
        if (runs.has(p)) continue;
        runs.add(p);
        needed.push(...(p.needs?.facts ?? []));
      }
    }
  }
  const order: Check[] = [];
  const placed = new Set<Check>();
  const byName = (a: Check, b: Check) => workOf(a) - workOf(b) || a.name.localeCompare(b.name, "en");
  for (let phase = 0; phase < PHASES.length; phase++) {
    const left = [...runs].filter((c) => phaseOf(c) === phase).sort(byName);
    while (left.length > 0) {
      // Ready: every check it waits for (among those that run) is placed.
      const ready = left.find((c) =>
        before(c, runs, providers).every(({ check: p, fact }) => {
          if (phaseOf(p) > phase) throw new Error(`the check "${c.name}" (${PHASES[phase]}) waits for "${p.name}" (${p.when}), over ${fact}`);
          return placed.has(p);
        }),
      );
      if (!ready) throw new Error(`the checks ${left.map((c) => `"${c.name}"`).join(", ")} wait for each other's facts in a circle`);
      order.push(ready);
      placed.add(ready);
      left.splice(left.indexOf(ready), 1);
    }
  }
  return order;
}
