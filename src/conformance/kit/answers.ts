// How two answers compare: the answer for another account's object is exactly the answer
// for one that does not exist (status, code, body shape, message with the ids put aside),
// on one route or on every route that takes an id.
import { isCollection } from "../judge/broken-rule.ts";
import type { Sequence } from "./sequence.ts";
import { lists } from "./gone.ts";
import { errorCodeOf, type Exchange, succeeded } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";


/** The other account's key on this account's object, and on an id nobody has: the same answer. */
export function judgeForeign(seq: Sequence, rule: string, foreign: Exchange, missing: Exchange, ids: [string, string], what: string): void {
  const op = foreign.operation?.operationId ?? "";
  if (isCollection(op) && succeeded(foreign)) {
    seq.expect(!lists(foreign, ids[0]), rule, `${what}: another account's object ${ids[0]} is among the records`, foreign);
    if (!lists(foreign, ids[0])) seq.expect(foreign.status === missing.status, rule, `${what}: another account's id answered ${foreign.status}, a missing one ${missing.status}`, foreign);
    return;
  }
  const differs = sameAnswer(foreign, missing, ids);
  seq.expect(differs === undefined, rule, `${what}: another account's object answered unlike a missing one (${differs})`, foreign);
}

/** Messages that differ only by the ids they quote. */
function masked(text: unknown, ids: string[]): string {
  let t = String(text ?? "");
  for (const id of ids) t = t.split(id).join("<id>");
  return t;
}

/** The field names of a JSON value, as dotted paths (array items merged): its shape. */
function shape(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((v) => shape(v, `${path}[]`)))];
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => [`${path}${k}`, ...shape(v, `${path}${k}.`)]);
}

/**
 * How the answer for another account's object differs from the one for an object that
 * does not exist (status, code, body shape, message with the ids put aside), or
 * undefined when it does not: anything else tells the caller the object exists.
 */
export function sameAnswer(foreign: Exchange, missing: Exchange, ids: string[]): string | undefined {
  const fc = errorCodeOf(foreign.json);
  const mc = errorCodeOf(missing.json);
  if (foreign.status !== missing.status || fc !== mc) return `${foreign.status} ${fc ?? ""} vs ${missing.status} ${mc ?? ""}`.replace(/ +/g, " ").trim();
  const a = shape(foreign.json).sort().join(", ");
  const b = shape(missing.json).sort().join(", ");
  if (a !== b) return `body fields [${a}] vs [${b}]`;
  const ma = masked(foreign.json?.error?.message, ids);
  const mb = masked(missing.json?.error?.message, ids);
  if (ma !== mb) return `${JSON.stringify(foreign.json?.error?.message)} vs ${JSON.stringify(missing.json?.error?.message)}`;
  return undefined;
}

/** The answer for another account's object is the answer for an object that does not exist. */
export function likeMissing(c: CheckContext, rule: string, foreign: Exchange, missing: Exchange, ids: string[], what: string): void {
  const fc = errorCodeOf(foreign.json);
  if (foreign.status !== 404 || fc !== "not_found") {
    c.fail(rule, `${what}: another account's object answered ${foreign.status} ${fc ?? ""}, not 404 not_found`, foreign);
    return;
  }
  const differs = sameAnswer(foreign, missing, ids);
  c.expect(differs === undefined, rule, `${what}: another account's object answers differently from a missing one (${differs})`, foreign);
}
