// What the generator cannot read from the schemas but earlier checks learnt: the catalog's
// models, ids of the account's objects, the run's uploads and result files.
import type { CheckContext } from "../facts/context.ts";
import type { Known } from "./generate/plans.ts";

function ids(list: Record<string, any>[]): string[] {
  return list.map((g) => g.id).filter((id): id is string => typeof id === "string");
}

/** What the schemas cannot know that earlier checks learnt (no request). */
export function knownOf(c: CheckContext): Known {
  const s = c.shared;
  const outputPaths = s.own.flatMap((g) => (Array.isArray(g.output_urls) ? g.output_urls : [])).map((u: unknown) => (typeof u === "string" ? c.target.pathOf(u) : undefined)).filter((p: string | undefined): p is string => typeof p === "string").slice(0, 10);
  return {
    models: s.models,
    ownIds: ids([...s.own, ...s.created]),
    createdIds: ids(s.created),
    uploadRefs: [...new Set(s.uploads.map((u) => u.reference))],
    assetIds: s.uploads.map((u) => u.assetId).filter((x): x is string => typeof x === "string"),
    slugs: [],
    outputPaths,
    cursors: {},
  };
}
