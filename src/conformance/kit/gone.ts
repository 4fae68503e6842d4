// An object that is gone (a generation revoked, cancelled or deleted, a folder deleted)
// is gone from every route that could show it (RESTler's use-after-free checker,
// Schemathesis' `use_after_free`): every route that takes its id, as the contract's
// links name them, answers 404 `not_found` (a batch read leaves it out), and the list of
// its kind no longer holds it. Used by the stateful walk and by the default run's
// sequences alike; only the bodies differ (generated, or written by hand). `sweepGone`
// sweeps for one object the run made go (the fact `gone`, or one the check made go itself).
import { operationById, type Json, type Operation } from "../../contract/index.ts";
import { isCollection } from "../judge/broken-rule.ts";
import { randomToken } from "./ids.ts";
import { ASSETS, FOLDERS, GENERATIONS, idRoutes } from "./objects.ts";
import { Sequence } from "./sequence.ts";
import { type Exchange, errorCodeOf, operationLabel, succeeded } from "../target/exchange.ts";
import { type GoneObject } from "../facts/learnt.ts";
import { type CheckContext } from "../facts/check.ts";


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

/** The object `id` is among the records of an answer (the record itself, or an item of `data`). */
export function lists(ex: Exchange, id: string): boolean {
  const j = ex.json;
  if (j && typeof j === "object" && j.id === id) return true;
  return Array.isArray(j?.data) && j.data.some((r: any) => r && r.id === id);
}

/** A route that took the id of an object that is gone. */
export function judgeGone(seq: Sequence, rule: string, ex: Exchange, id: string, what: string): void {
  const op = ex.operation?.operationId ?? "";
  const code = errorCodeOf(ex.json);
  if (isCollection(op)) {
    seq.expect(!(succeeded(ex) && lists(ex, id)), rule, `${what}: the gone object ${id} is still among the records (${ex.status})`, ex);
    return;
  }
  if (succeeded(ex)) {
    seq.fail(rule, `${what} answered ${ex.status}: the gone object ${id} was acted on; it answers 404 not_found`, ex);
    return;
  }
  if (ex.status === 404 && code === "not_found") {
    seq.c.pass(rule);
    return;
  }
  if (ex.status >= 500) seq.fail(rule, `${what} answered ${ex.status}${code ? ` ${code}` : ""}, not 404 not_found`, ex);
  else seq.note(rule, `${what} answered ${ex.status}${code ? ` ${code}` : ""} (not 404 not_found, not served either)`);
}
