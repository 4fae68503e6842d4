// Where every exchange and every stream frame of a run goes: the target hands each one,
// once, to the run's sink (run/runner.ts joins them: Prism's second opinion, the answer
// judge; the trace recorder of issue 24 joins here). A sink never sends a request, so
// traffic the suite did not send (a proxy's, a recorded HAR file's) can feed it as well:
// make each exchange with `exchangeOf` and hand it over the same way.
import type { Exchange } from "./exchange.ts";
import type { SentRequest } from "./record.ts";
import type { Frame } from "./stream.ts";

/** How an exchange came to be, as far as judging it goes. */
export interface Delivery {
  /** The rule the request exercised: a departure that no rule owns is charged to it. */
  rule: string;
  /** Not an API request (a CORS preflight, a PUT to storage): recorded, not held to the contract. */
  bare: boolean;
  /** Seconds the suite had let pass on the target (waited, or moved its clock) when it came. */
  elapsedSeconds: number;
}

export interface ExchangeSink {
  /** An answer, as soon as it is read (before the check that asked sees it). */
  exchange(ex: Exchange, how: Delivery): void;
  /** A frame of the event stream that `opened` opened. */
  frame?(frame: Frame, opened: Exchange): void;
  /** The stream that `opened` opened sent a frame larger than the suite reads (it was closed): a failure of `rule`. */
  overflow?(opened: Exchange, rule: string, message: string): void;
  /** A request that got no answer (`why`: the error that stops it). */
  unanswered?(sent: SentRequest, why: Error): void;
  /** The suite sent `ex`'s request invalid on purpose (a refusal check). */
  deliberate?(ex: Exchange): void;
}

/** Several sinks as one, each handed every item in the order given. */
export function sinks(...list: ExchangeSink[]): ExchangeSink {
  return {
    exchange: (ex, how) => list.forEach((s) => s.exchange(ex, how)),
    frame: (frame, opened) => list.forEach((s) => s.frame?.(frame, opened)),
    overflow: (opened, rule, message) => list.forEach((s) => s.overflow?.(opened, rule, message)),
    unanswered: (sent, why) => list.forEach((s) => s.unanswered?.(sent, why)),
    deliberate: (ex) => list.forEach((s) => s.deliberate?.(ex)),
  };
}
