// How an answer describes its rate window: the `RateLimit` and `RateLimit-Policy` pair
// (RFC 9651 structured fields). Read here once, for the target (it waits for a window's
// reset rather than spend the caller's last requests), the answer checks (the pair's form,
// its countdown) and the checks that count what a request costs; and when two answers
// describe the same window, for the countdown check and the window invariants alike.
import { parseList, Token, type Item } from "structured-headers";
import type { Exchange } from "./exchange.ts";

export type Pair =
  | { kind: "none" }
  | { kind: "half" }
  | { kind: "unstructured"; limit: string; policy: string }
  | { kind: "items"; limit: Item[]; policy: Item[] };

/** The answer's RateLimit pair as read. */
export function rateLimitPair(headers: Headers): Pair {
  const limit = headers.get("ratelimit");
  const policy = headers.get("ratelimit-policy");
  if (limit === null && policy === null) return { kind: "none" };
  if (limit === null || policy === null) return { kind: "half" };
  const l = structured(limit);
  const p = structured(policy);
  return l && p ? { kind: "items", limit: l, policy: p } : { kind: "unstructured", limit, policy };
}

/** A window as one answer describes it: its name, requests left, seconds to its reset, and (from the policy) its quota and length. */
export interface Window {
  policy: string;
  remaining: number;
  reset: number;
  quota?: number;
  window?: number;
}

/**
 * The one window the pair describes (one item each, both named), with `r` and `t`; the
 * quota and length when the policy gives them. Undefined for any other pair.
 */
export function pairWindow(pair: Pair): Window | undefined {
  if (pair.kind !== "items" || pair.limit.length !== 1 || pair.policy.length !== 1) return undefined;
  const name = itemName(pair.limit[0]!);
  if (name === undefined || itemName(pair.policy[0]!) === undefined) return undefined;
  const remaining = param(pair.limit[0]!, "r");
  const reset = param(pair.limit[0]!, "t");
  if (remaining === undefined || reset === undefined) return undefined;
  const quota = param(pair.policy[0]!, "q");
  const window = param(pair.policy[0]!, "w");
  return { policy: name, remaining, reset, ...(quota !== undefined ? { quota } : {}), ...(window !== undefined ? { window } : {}) };
}

/** The window the `RateLimit` header alone describes (one item, named, with `r` and `t`). */
export function windowOf(headers: Headers): Window | undefined {
  const raw = headers.get("ratelimit");
  const list = raw === null ? undefined : structured(raw);
  if (!list || list.length !== 1) return undefined;
  const policy = itemName(list[0]!);
  const remaining = param(list[0]!, "r");
  const reset = param(list[0]!, "t");
  if (policy === undefined || remaining === undefined || reset === undefined) return undefined;
  return { policy, remaining, reset };
}

function structured(value: string): Item[] | undefined {
  try {
    const list = parseList(value);
    if (list.some((m) => Array.isArray(m[0]))) return undefined;
    return list as Item[];
  } catch {
    return undefined;
  }
}

export function itemName(item: Item): string | undefined {
  const v = item[0];
  if (typeof v === "string") return v;
  if (v instanceof Token) return v.toString();
  return undefined;
}

export function param(item: Item, key: string): number | undefined {
  const v = item[1].get(key);
  return typeof v === "number" ? v : undefined;
}

/** A request's time, sent to answered, in whole milliseconds since the epoch. */
export interface Span {
  start: number;
  end: number;
}

export function spanOf(ex: Exchange): Span {
  const start = Date.parse(ex.record.startedAt);
  return { start, end: start + ex.record.ms };
}

/** When an answer read a window: its request's time, the seconds the suite had let pass on the target by then (waited, or moved its clock), and the window's reset `t`. */
export interface WindowSighting {
  span: Span;
  elapsed: number;
  reset: number;
}

/** Seconds that may have passed on the target between the counting of `a`'s request and of `b`'s (at most). */
export const passedBetween = (a: WindowSighting, b: WindowSighting) => (b.span.end - a.span.start) / 1000 + (b.elapsed - a.elapsed);

/**
 * Do `a` and then `b` describe one window, no reset between them? `b` was sent after `a`
 * was answered (which was counted first is known: overlapping requests may be counted in
 * either order), its reset is no further away, and less time passed between them than `a`
 * said was left, by a whole second (`t` is rounded). Whether the remainder went down is
 * left to the caller: within one window it never goes up, and each request spends one.
 */
export function sameWindow(a: WindowSighting, b: WindowSighting): boolean {
  return a.span.end <= b.span.start && b.reset <= a.reset && passedBetween(a, b) + 1 < a.reset;
}
