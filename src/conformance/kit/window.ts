// What requests cost of the request window, read from the `RateLimit` pair of two answers
// to the same credential: within one window (same policy, the reset not further away,
// the remainder not higher) the remainder went down by what the requests in between and
// the second one spent. The seed gives each request, an estimate and each stream opening
// one request of the window, no more and no less.
import { parseList, Token } from "structured-headers";
import type { Exchange } from "../target/target.ts";

export interface WindowSeen {
  policy: string;
  remaining: number;
  reset: number;
}

/** The window an answer describes, when its `RateLimit` header is one structured item with `r` and `t`. */
export function windowOf(ex: Exchange): WindowSeen | undefined {
  const raw = ex.headers.get("ratelimit");
  if (!raw) return undefined;
  try {
    const list = parseList(raw);
    if (list.length !== 1 || Array.isArray(list[0]![0])) return undefined;
    const [name, params] = list[0]! as [unknown, Map<string, unknown>];
    const policy = typeof name === "string" ? name : name instanceof Token ? name.toString() : undefined;
    const r = params.get("r");
    const t = params.get("t");
    if (policy === undefined || typeof r !== "number" || typeof t !== "number") return undefined;
    return { policy, remaining: r, reset: t };
  } catch {
    return undefined;
  }
}

/**
 * How many requests of the window went between answer `a` and answer `b` (b's own
 * included), or undefined when the two do not describe the same window (another
 * policy, a reset in between, a header missing).
 */
export function spentBetween(a: Exchange, b: Exchange): number | undefined {
  const x = windowOf(a);
  const y = windowOf(b);
  if (!x || !y || x.policy !== y.policy || y.remaining > x.remaining || y.reset > x.reset) return undefined;
  return x.remaining - y.remaining;
}
