// What the run made go is gone from every route that could show it (the default run's
// use-after-free): the generation a moderation report revoked (reports), the folder the
// library check deleted, and, where the caller can cancel or delete generations
// (`control`), those. Every route that takes the id answers 404 `not_found` (a batch
// read leaves it out), and the list of its kind no longer holds it.
import { randomToken, type Check, type CheckContext, type GoneObject } from "../context.ts";
import type { Json, Operation } from "../../contract/index.ts";
import { goneEverywhere } from "../stateful/gone.ts";
import { Sequence } from "../stateful/sequence.ts";

export const GONE_RULES = ["REP-3", "LIB-5"];

/** A body for a route that takes the gone object's id (its own template, or a plain valid one). */
function bodyFor(g: GoneObject, op: Operation, template: Json | undefined): Json | undefined {
  const own = g.bodies?.[op.operationId];
  if (own !== undefined) return own as Json;
  switch (op.operationId) {
    case "reportGeneration":
      return { text: "Conformance check: a report on a generation that is gone (it must answer 404)." };
    case "changeLibraryFolder":
      return { name: `Conformance ${randomToken()} (gone)` };
    case "changeGenerationTitle":
    case "changeLibraryAssetTitle":
      return {}; // the title's field is not shown
    default:
      return template;
  }
}

/** Sweeps every route for one gone object, as a sequence whose findings carry its steps (`ruleOf`: a route's own rule). */
export async function sweepGone(c: CheckContext, g: GoneObject, ruleOf?: (operationId: string) => string | undefined): Promise<void> {
  const seq = new Sequence(c, `gone after ${g.why}`, undefined);
  await goneEverywhere(seq, g.kind, g.id, g.rule, g.why, { ...(g.outputs ? { outputs: g.outputs } : {}), ...(ruleOf ? { ruleOf } : {}), body: (op, template) => bodyFor(g, op, template) });
}

/** A generation record's result files, as paths on the target (used as given, never built). */
export function outputPaths(c: CheckContext, record: { output_urls?: unknown } | undefined): string[] {
  const urls: unknown[] = Array.isArray(record?.output_urls) ? record.output_urls : [];
  return urls.map((u) => c.target.pathOf(String(u))).filter((p): p is string => Boolean(p));
}

export const goneSweep: Check = {
  name: "across calls: what was revoked or deleted is gone from every route",
  rules: GONE_RULES,
  needs: { writes: true },
  async run(c) {
    const gone = c.shared.gone.splice(0);
    if (!gone.some((g) => g.kind === "generations")) c.skip(["REP-3"], "no generation was revoked in this run (a moderation report on one it created needs --allow-spend): its routes not swept");
    if (!gone.some((g) => g.kind === "library/folders")) c.skip(["LIB-5"], "no folder of the run was deleted: its routes not swept");
    for (const g of gone) await sweepGone(c, g);
  },
};
