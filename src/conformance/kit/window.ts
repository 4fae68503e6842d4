// What requests cost of the request window, read from the `RateLimit` header of two answers
// to the same credential: within one window (same policy, the reset not further away,
// the remainder not higher) the remainder went down by what the requests in between and
// the second one spent. The seed gives each request, an estimate and each stream opening
// one request of the window, no more and no less.
import type { Exchange } from "../target/exchange.ts";
import { windowOf } from "../target/rate-window.ts";

/**
 * How many requests of the window went between answer `a` and answer `b` (b's own
 * included), or undefined when the two do not describe the same window (another
 * policy, a reset in between, a header missing).
 */
export function spentBetween(a: Exchange, b: Exchange): number | undefined {
  const x = windowOf(a.headers);
  const y = windowOf(b.headers);
  if (!x || !y || x.policy !== y.policy || y.remaining > x.remaining || y.reset > x.reset) return undefined;
  return x.remaining - y.remaining;
}
