// What every stateful sequence is given: the run, what the generator learnt, the seed,
// the operations selected, and the report's list of sequences.
import { operationSeed } from "./generate/cases.ts";
import type { Known } from "./generate/plans.ts";
import type { SequenceRun } from "../facts/generated.ts";
import { Sequence } from "./sequence.ts";
import { knownOf } from "./known.ts";
import { type CheckContext } from "../facts/check.ts";

export interface Walk {
  c: CheckContext;
  known: Known;
  seed: number;
  perOperation: number;
  /** `--operations`: a sequence runs when its first operation is among them. */
  operations?: string[];
  runs: SequenceRun[];
  /** The flags that run it again, when it is a property of every run rather than a step of the generated walk. */
  replay?: string;
}

/** Whether the sequence that starts with `operationId` runs (`--operations`). */
export function selected(w: Walk, operationId: string): boolean {
  return !w.operations || w.operations.includes(operationId);
}

/** The flags that walk a sequence again: the seed and its first operation. */
export function replayOf(w: Walk, first: string): string {
  return w.replay ?? `--generate=${w.perOperation} --seed ${w.seed} --operations ${first}`;
}

/** A sequence of the walk, replayed by the seed and its first operation. */
export function sequence(w: Walk, name: string, first: string): Sequence {
  return new Sequence(w.c, name, replayOf(w, first));
}

/** The seed of one sequence: the same run seed walks it alike, whatever else runs. */
export function seedOf(w: Walk, name: string): number {
  return operationSeed(w.seed, `sequence ${name}`);
}

/** What the generator knows, with the ids of the objects a sequence made. */
export function knownWith(w: Walk, ids: { createdIds?: string[]; assetIds?: string[]; folderId?: string }): Known {
  return { ...w.known, ...ids };
}

/**
 * Starts a sequence (its entry added to the report), or, when `allowed` is false, records
 * why it was not walked (`why`, on its rules) and returns undefined.
 */
export function begin(w: Walk, name: string, first: string, rules: readonly string[], allowed: boolean, why: string): Sequence | undefined {
  const seq = sequence(w, name, first);
  w.runs.push(seq.run);
  if (allowed) return seq;
  seq.skip(rules, `not walked: ${why}`);
  seq.done();
  return undefined;
}

/** A walk of one property: what earlier checks learnt, the run's seed (or 0), run again by `--only`. */
export function propertyWalk(c: CheckContext, rules: readonly string[]): Walk {
  return { c, known: knownOf(c), seed: c.settings.generate?.seed ?? 0, perOperation: 0, runs: [], replay: `--only ${rules.join(",")}` };
}
