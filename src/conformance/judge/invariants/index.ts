// The invariants: named checks over the whole trace of a run, beside the answer checks
// (which judge one answer at a time). A rule that must hold over every answer is judged
// over every answer: HTTP's validators and identifiers over many answers, every rate
// window over time, every event stream over its life, a record wherever it is read, money
// wherever it shows (issue 24). An invariant watches the exchanges and frames of a run as
// they come (a watch is a sink, so a trace recorded elsewhere, a proxy's or a HAR file's,
// can be handed to it the same way) and says what it found when the run ends; the runner
// records its findings like the answer checks'. None is written yet: the registry is the
// place for them.
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

/** Every invariant, in one registry (the answer checks' is ANSWER_CHECKS). */
export const INVARIANTS: readonly Invariant[] = [];
