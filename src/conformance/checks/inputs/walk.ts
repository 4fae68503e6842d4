// The stateful walk of a generated run (`--generate`): after the generated cases, the
// objects' lives along the contract's links. Another account's ids on every route that
// takes one, and credentials with fewer scopes on every route that needs a scope, are
// properties of every run (checks/other-account/, checks/auth/fewer-scopes.ts), not steps of this walk.
import type { Known } from "../../kit/generate/plans.ts";
import type { SequenceRun } from "../../facts/generated.ts";
import { FOLDER_RULES, folderLife, GENERATION_RULES, generationLife, READ_RULES, readLinks } from "./lifecycles.ts";
import type { Walk } from "../../kit/walk.ts";
import { onlyMatches } from "../../judge/results.ts";
import { type CheckContext } from "../../facts/check.ts";

/** Every rule a stateful finding may be charged to. */
export const STATEFUL_RULES: readonly string[] = [...new Set([...READ_RULES, ...GENERATION_RULES, ...FOLDER_RULES])];

const SEQUENCES: [readonly string[], (w: Walk) => Promise<void>][] = [
  [READ_RULES, readLinks],
  [GENERATION_RULES, generationLife],
  [FOLDER_RULES, folderLife],
];

/** Walks every sequence whose rules `--only` selects; each adds its entry to `runs`. */
export async function walk(c: CheckContext, known: Known, g: { seed: number; perOperation: number; operations?: string[] }, runs: SequenceRun[]): Promise<void> {
  const w: Walk = { c, known, seed: g.seed, perOperation: g.perOperation, ...(g.operations ? { operations: g.operations } : {}), runs };
  const only = c.settings.options.only;
  for (const [rules, run] of SEQUENCES) {
    if (only?.length && !rules.some((id) => onlyMatches(id, only))) continue;
    await run(w);
  }
}
