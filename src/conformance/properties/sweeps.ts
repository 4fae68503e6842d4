// Two sweeps over every route, properties of every run (they were steps of the generated
// walk; `--generate` adds inputs, not properties): another account's ids answer exactly
// like missing ones on every route that takes an id (`--other-api-key`), and a credential
// with fewer scopes is refused on every route that needs a scope it lacks (the `read-only`
// key, `--scoped-key`s, an access token of one scope with OAuth auto-consent). They report
// as the walk's sequences do (each finding with the requests that led to it), and name the
// flags that run them again.
import type { Check, CheckContext } from "../context.ts";
import { knownOf } from "../checks/generated.ts";
import { FOREIGN_RULES, foreignSweep } from "../stateful/foreign.ts";
import { SCOPE_RULES, scopeSweep } from "../stateful/scopes.ts";
import type { Walk } from "../stateful/walk.ts";

/** A walk of one property: what earlier checks learnt, the run's seed (or 0), run again by `--only`. */
function propertyWalk(c: CheckContext, rules: readonly string[]): Walk {
  return { c, known: knownOf(c), seed: c.settings.generate?.seed ?? 0, perOperation: 0, runs: [], replay: `--only ${rules.join(",")}` };
}

export const anotherAccountEveryRoute: Check = {
  name: "another account's ids on every route that takes one",
  rules: FOREIGN_RULES,
  run: (c) => foreignSweep(propertyWalk(c, FOREIGN_RULES)),
};

export const fewerScopesEveryRoute: Check = {
  name: "fewer scopes on every route that needs one",
  rules: SCOPE_RULES,
  run: (c) => scopeSweep(propertyWalk(c, SCOPE_RULES)),
};
