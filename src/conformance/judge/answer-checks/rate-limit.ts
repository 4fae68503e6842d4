// `RateLimit` and `RateLimit-Policy` on every `/v1` answer that reaches the limiter: their
// structured form (no legacy `X-RateLimit-*`, no `pk`), exactly one window named alike in
// both, its numbers within the policy, a refusing request window describing itself (a
// refusal for busy slots, a full queue or the submit window is not the request windows'),
// and its remainder counting down within a window (the window each credential last saw is
// kept for the next answer's countdown). The pair is read by target/rate-window.ts.
import { errorCodes, responseFor } from "../../../contract/index.ts";
import { isUnrouted } from "../broken-rule.ts";
import { errorCodeOf, isV1, type Exchange } from "../../target/exchange.ts";
import { itemName, param, passedBetween, rateLimitPair, sameWindow, spanOf } from "../../target/rate-window.ts";
import { broke, held, type AnswerCheck, type Finding, type WindowSeen } from "./check.ts";

export const rateLimitForm: AnswerCheck = {
  name: "RateLimit and RateLimit-Policy in their structured form",
  rules: ["LIM-2", "EP-3", "LIM-3"],
  check(ex) {
    if (!isV1(ex)) return [];
    const out: Finding[] = [];
    const legacy = [...ex.headers.keys()].filter((h) => /^x-ratelimit-/i.test(h));
    if (legacy.length > 0) out.push(broke("LIM-2", `legacy headers sent: ${legacy.join(", ")}`));
    const pair = rateLimitPair(ex.headers);
    if (pair.kind === "none") return out;
    out.push(held("EP-3"), held("LIM-2"), held("LIM-3"));
    if (pair.kind === "half") out.push(broke("EP-3", "only one of RateLimit and RateLimit-Policy was sent"));
    else if (pair.kind === "unstructured") out.push(broke("LIM-2", `RateLimit ${JSON.stringify(pair.limit)} / RateLimit-Policy ${JSON.stringify(pair.policy)} are not structured fields`));
    else if (pair.limit.some((i) => i[1].has("pk")) || pair.policy.some((i) => i[1].has("pk"))) out.push(broke("LIM-2", "the `pk` parameter is sent"));
    return out;
  },
};

/** Seconds of rounding allowed when a window's reset is compared over time. */
const RESET_SLACK = 3;

export const rateLimitWindow: AnswerCheck = {
  name: "RateLimit describes one window, counting down",
  rules: ["LIM-3"],
  check(ex, context) {
    const pair = isV1(ex) ? rateLimitPair(ex.headers) : undefined;
    if (pair?.kind !== "items") return [];
    if (pair.limit.length !== 1 || pair.policy.length !== 1) {
      return [broke("LIM-3", `the pair describes ${pair.limit.length} and ${pair.policy.length} windows; exactly one (the binding one) is expected`)];
    }
    const name = itemName(pair.limit[0]!);
    const pname = itemName(pair.policy[0]!);
    if (name === undefined || pname === undefined) return [];
    const out: Finding[] = [];
    if (name !== pname) out.push(broke("LIM-3", `RateLimit names ${JSON.stringify(name)} but RateLimit-Policy names ${JSON.stringify(pname)}`));
    const remaining = param(pair.limit[0]!, "r");
    const reset = param(pair.limit[0]!, "t");
    const quota = param(pair.policy[0]!, "q");
    const window = param(pair.policy[0]!, "w");
    const seen = context.seen;
    seen.policies.add(name);
    if (window !== undefined) seen.windowLengths.set(name, window);
    if (remaining !== undefined && quota !== undefined && remaining > quota) out.push(broke("LIM-3", `r=${remaining} is above the quota q=${quota}`));
    if (reset !== undefined && window !== undefined && reset > window) out.push(broke("LIM-3", `t=${reset} is beyond the window w=${window}`));
    // A refusing window describes itself (r=0). Only a request window's refusal is one:
    // `rate_limited` also refuses busy slots, a full queue and the submit window (the
    // reason in `details` says which), and the pair describes the request windows, which
    // did not refuse then.
    if (ex.status === 429 && refusedByRequestWindow(ex) && remaining !== undefined && remaining !== 0) {
      out.push(broke("LIM-3", `a refusing window must describe itself: r=${remaining} on a 429 rate_limited of the request window (details reason request_rate)`));
    }
    if (remaining === undefined || reset === undefined) return out;
    const prev = seen.windows.get(ex.label);
    const now: WindowSeen = { policy: name, remaining, reset, quota, window, span: spanOf(ex), elapsed: context.elapsedSeconds };
    if (!context.staticMock && prev && prev.policy === name && ex.status !== 429 && sameWindow(prev, now)) {
      // Within one window each request spends one.
      if (remaining >= prev.remaining) out.push(broke("LIM-3", `remaining did not go down within the ${name} window (r=${prev.remaining} then r=${remaining})`));
      // The reset comes closer by the time the suite let pass on the server between them
      // (waited, or its clock moved: what surely passed there, where a frozen clock ignores
      // the real time), judged only while no time that passed can have reached the reset
      // the first answer said. t is whole seconds: RESET_SLACK covers the rounding of both.
      const letPass = context.elapsedSeconds - prev.elapsed;
      if (passedBetween(prev, now) + RESET_SLACK < prev.reset && reset > prev.reset - letPass + RESET_SLACK) {
        out.push(broke("LIM-3", `the ${name} window's reset did not come closer: t=${prev.reset}, then t=${reset} after the suite let ${letPass} s pass on the server, within the same window`));
      }
    }
    // The credential's latest answer goes last, so the oldest-seen goes first when the passive judge bounds its memory.
    seen.windows.delete(ex.label);
    seen.windows.set(ex.label, now);
    return out;
  },
};

/**
 * Refusals a request can get before its route's handler reads it (the credential checks,
 * the limiter, an unknown route or object, a body the server will not read): anything
 * else shows that the handler acted on it.
 */
export const BEFORE_A_HANDLER: ReadonlySet<string> = new Set([
  "api_disabled",
  "unauthorized",
  "invalid_api_key",
  "api_key_expired",
  "api_key_revoked",
  "invalid_token",
  "api_access_not_granted",
  "account_suspended",
  "legal_consent_required",
  "insufficient_scope",
  "origin_mismatch",
  "not_found",
  "rate_limited",
  "request_too_large",
  "internal_error",
  "service_unavailable",
  "invalid_request",
]);

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

/**
 * The pair on every answer that reaches the limiter (EP-3). The contract can require it
 * only on successes (a refusal may come before the limiter: the credential checks,
 * `origin_mismatch`, `api_disabled`); a refusal only a route's handler gives (an object
 * that is not there, a bad cursor or limit, a conflict, a plan or a balance that does not
 * allow it) comes after the limiter, so it carries the pair too.
 */
export const rateLimitOnHandlerRefusal: AnswerCheck = {
  name: "RateLimit on a refusal the route's handler gave",
  rules: ["EP-3"],
  check(ex, context) {
    const code = context.staticMock ? undefined : handlerRefusal(ex);
    if (!code) return [];
    const missing = ["RateLimit", "RateLimit-Policy"].filter((h) => !ex.headers.has(h));
    return [missing.length === 0 ? held("EP-3") : broke("EP-3", `a ${ex.status} ${code} of ${ex.operation!.operationId} (the route's own refusal: the request passed the limiter) came without ${missing.join(" and ")}`)];
  },
};

/** A 429 `rate_limited` by a request window: `details[].reason` is `request_rate` (not busy slots, a full queue or the submit window). */
function refusedByRequestWindow(ex: { json: any }): boolean {
  const details: unknown = ex.json?.error?.details;
  return errorCodeOf(ex.json) === "rate_limited" && Array.isArray(details) && details.some((d) => d && typeof d === "object" && (d as { reason?: unknown }).reason === "request_rate");
}
