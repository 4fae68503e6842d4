// Properties of every answer the run gets, beside the observations of http.ts: each a
// named function of one exchange, run on every answer (Target's `watch`).
//
// The RateLimit pair on every answer that reaches the limiter (EP-3). The contract can
// require it only on successes (a refusal may come before the limiter: the credential
// checks, `origin_mismatch`, `api_disabled`); a refusal only a route's handler gives (an
// object that is not there, a bad cursor or limit, a conflict, a plan or a balance that
// does not allow it) comes after the limiter, so it carries the pair too.
import { errorCodes, responseFor } from "../../contract/index.ts";
import { errorCodeOf, isUnrouted } from "../classify.ts";
import type { Exchange } from "../http.ts";
import type { Results } from "../results.ts";
import { BEFORE_A_HANDLER } from "./every-route.ts";

/** A refusal only the route's handler gives (the request passed the credential checks and the limiter), or undefined. */
function handlerRefusal(ex: Exchange): string | undefined {
  const op = ex.operation;
  if (!op || !op.path.startsWith("/v1/") || ex.status < 400 || ex.status >= 500 || ex.status === 413 || ex.status === 429) return undefined;
  if (isUnrouted(op, ex.status)) return undefined;
  const code = errorCodeOf(ex.json);
  if (!code || errorCodes.get(code)?.status !== ex.status) return undefined;
  // `not_found` of an object the route addresses (its 404 is declared), not of a route.
  if (code === "not_found") return op.path.includes("{") && responseFor(op, 404) ? code : undefined;
  return BEFORE_A_HANDLER.has(code) ? undefined : code;
}

/** EP-3: a handler's refusal carries `RateLimit` and `RateLimit-Policy`. */
export function limiterPair(ex: Exchange): { rule: string; ok: boolean; message: string } | undefined {
  const code = handlerRefusal(ex);
  if (!code) return undefined;
  const missing = ["RateLimit", "RateLimit-Policy"].filter((h) => !ex.headers.has(h));
  return { rule: "EP-3", ok: missing.length === 0, message: `a ${ex.status} ${code} of ${ex.operation!.operationId} (the route's own refusal: the request passed the limiter) came without ${missing.join(" and ")}` };
}

/** The properties every answer is held to here, in order. */
const EVERY_ANSWER = [limiterPair];

/** What the run's Target calls on every answer (never against a static mock: its headers are examples). */
export function watchEveryAnswer(results: Results, staticMock: boolean): (ex: Exchange) => void {
  return (ex) => {
    if (staticMock) return;
    for (const property of EVERY_ANSWER) {
      const found = property(ex);
      if (!found) continue;
      if (found.ok) results.pass(found.rule);
      else results.fail(found.rule, found.message, ex.cite);
    }
  };
}
