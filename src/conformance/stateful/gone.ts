// An object that is gone (a generation revoked, cancelled or deleted, a folder deleted)
// is gone from every route that could show it (RESTler's use-after-free checker,
// Schemathesis' `use_after_free`): every route that takes its id, as the contract's
// links name them, answers 404 `not_found` (a batch read leaves it out), and the list of
// its kind no longer holds it. Used by the stateful walk and by the default run's
// sequences alike; only the bodies differ (generated, or written by hand).
import { operationById, type Json, type Operation } from "../../contract/index.ts";
import { operationLabel } from "../describe.ts";
import { judgeGone } from "./judge.ts";
import { ASSETS, FOLDERS, GENERATIONS, idRoutes } from "./routes.ts";
import type { Sequence } from "./sequence.ts";

/** The list that shows objects of a kind, as a path to read (the first page of the largest size). */
const LISTS: Readonly<Record<string, string>> = {
  [GENERATIONS]: "/v1/generations?limit=100",
  [ASSETS]: "/v1/library/assets?limit=100",
  [FOLDERS]: "/v1/library/folders",
};

export interface GoneOptions {
  /** Its result files (generations), used as given. */
  outputs?: string[];
  /** The body a route that takes one is sent with: the link's template is given, merged or not. */
  body(op: Operation, template: Json | undefined): Json | undefined;
  /** The rule a route is held to, where it is not `rule` (a route's own sentence: GEN-9 for a cancelled generation's read). */
  ruleOf?(operationId: string): string | undefined;
}

/** Every route that takes the id of the gone object `id` of `kind`, then its list: none may serve it. */
export async function goneEverywhere(seq: Sequence, kind: string, id: string, objectRule: string, why: string, o: GoneOptions): Promise<void> {
  for (const r of idRoutes(kind)) {
    const op = r.operation;
    const rule = o.ruleOf?.(op.operationId) ?? objectRule;
    if (!r.template) {
      if (!o.outputs?.length) seq.note(rule, `${operationLabel(op)} not tried after ${why}: the object had no ${r.via.split(" ")[0]}`);
      for (const path of (o.outputs ?? []).slice(0, 1)) judgeGone(seq, rule, await seq.send(`${op.operationId} (${r.via})`, { method: "GET", path, rule, headersOnly: true }), id, `${operationLabel(op)} after ${why}`);
      continue;
    }
    const t = r.template(id);
    const body = op.op.requestBody ? (o.body(op, t.body) ?? {}) : undefined;
    const ex = await seq.send(`${op.operationId} (${r.via})`, { method: op.method.toUpperCase(), path: t.path, ...(body !== undefined ? { json: body } : {}), rule });
    judgeGone(seq, rule, ex, id, `${operationLabel(op)} (${r.via}) after ${why}`);
  }
  const list = LISTS[kind];
  const rule = objectRule;
  if (list) {
    const op = operationById({ [GENERATIONS]: "listGenerations", [ASSETS]: "listLibraryAssets", [FOLDERS]: "listLibraryFolders" }[kind]!);
    judgeGone(seq, rule, await seq.send(`${op.operationId} (the list of its kind)`, { method: "GET", path: list, rule }), id, `${operationLabel(op)} after ${why}`);
  }
}
