// What the generator cannot read from the schemas but earlier checks learnt: the catalog's
// models, ids of the account's objects, the run's uploads and result files.
import type { AnyFact } from "../facts/learnt.ts";
import type { Known } from "./generate/plans.ts";
import { type CheckContext } from "../facts/check.ts";

/** The facts `knownOf` reads: a check that calls it uses them (`needs.uses`). */
export const KNOWN_FACTS: readonly AnyFact[] = ["models", "ownGenerations", "created", "uploads"];

function ids(list: Record<string, any>[]): string[] {
  return list.map((g) => g.id).filter((id): id is string => typeof id === "string");
}

/** What the schemas cannot know that earlier checks learnt (no request), or that the caller read afresh (`fresh`). */
export function knownOf(c: CheckContext, fresh: { models?: Record<string, any>[]; own?: Record<string, any>[] } = {}): Known {
  const own = fresh.own ?? c.known("ownGenerations") ?? [];
  const created = c.known("created");
  const uploads = c.known("uploads");
  const outputPaths = own.flatMap((g) => (Array.isArray(g.output_urls) ? g.output_urls : [])).map((u: unknown) => (typeof u === "string" ? c.target.pathOf(u) : undefined)).filter((p: string | undefined): p is string => typeof p === "string").slice(0, 10);
  return {
    models: fresh.models ?? c.known("models") ?? [],
    ownIds: ids([...own, ...created]),
    createdIds: ids(created),
    uploadRefs: [...new Set(uploads.map((u) => u.reference))],
    assetIds: uploads.map((u) => u.assetId).filter((x): x is string => typeof x === "string"),
    slugs: [],
    outputPaths,
    cursors: {},
  };
}
