// What an invariant is: a named check over the whole trace of a run (or a recorded one),
// and its watch, a sink fed every exchange and frame that says at the end what it found.
import type { Cited } from "../../target/exchange.ts";
import type { ExchangeSink } from "../../target/sink.ts";
import type { Finding } from "../answer-checks/check.ts";

export interface Invariant {
  name: string;
  /** The seed rules it holds. */
  rules: readonly string[];
  /** A fresh watch for one run (or one recorded trace). */
  watch(): InvariantWatch;
}

/** What an invariant found, citing the exchange (or the sequence of them) that shows it. */
export type InvariantFinding = Finding & { cite?: Cited };

export interface InvariantWatch extends ExchangeSink {
  /** What it found over everything it was handed. */
  findings(): InvariantFinding[];
}

/**
 * What a watch keeps of an exchange it may cite later: its request id, request line and
 * operation, never the exchange's record (a body prefix of up to 64 Ki characters: held for
 * 100,000 ids, that is gigabytes).
 */
export function citedLater(cite: Cited): Cited {
  const { requestId, request, operation } = cite;
  return { requestId, request, operation };
}
