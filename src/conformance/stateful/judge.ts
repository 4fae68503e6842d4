// How the stateful walk judges the answers of the routes that take an id: an object that
// is gone answers 404 `not_found` everywhere (a batch read leaves it out), never 2xx; and
// the answer for another account's object is the answer for a missing one.
import { isCollection } from "../broken-rule.ts";
import { errorCodeOf } from "../describe.ts";
import { sameAnswer } from "../checks/generations.ts";
import type { Exchange } from "../http.ts";
import type { Sequence } from "./sequence.ts";

/** The object `id` is among the records of an answer (the record itself, or an item of `data`). */
export function lists(ex: Exchange, id: string): boolean {
  const j = ex.json;
  if (j && typeof j === "object" && j.id === id) return true;
  return Array.isArray(j?.data) && j.data.some((r: any) => r && r.id === id);
}

const ok = (ex: Exchange) => ex.status >= 200 && ex.status < 300;

/** A route that took the id of an object that is gone. */
export function judgeGone(seq: Sequence, rule: string, ex: Exchange, id: string, what: string): void {
  const op = ex.operation?.operationId ?? "";
  const code = errorCodeOf(ex.json);
  if (isCollection(op)) {
    seq.expect(!(ok(ex) && lists(ex, id)), rule, `${what}: the gone object ${id} is still among the records (${ex.status})`, ex);
    return;
  }
  if (ok(ex)) {
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

/** The other account's key on this account's object, and on an id nobody has: the same answer. */
export function judgeForeign(seq: Sequence, rule: string, foreign: Exchange, missing: Exchange, ids: [string, string], what: string): void {
  const op = foreign.operation?.operationId ?? "";
  if (isCollection(op) && ok(foreign)) {
    seq.expect(!lists(foreign, ids[0]), rule, `${what}: another account's object ${ids[0]} is among the records`, foreign);
    if (!lists(foreign, ids[0])) seq.expect(foreign.status === missing.status, rule, `${what}: another account's id answered ${foreign.status}, a missing one ${missing.status}`, foreign);
    return;
  }
  const differs = sameAnswer(foreign, missing, ids);
  seq.expect(differs === undefined, rule, `${what}: another account's object answered unlike a missing one (${differs})`, foreign);
}
