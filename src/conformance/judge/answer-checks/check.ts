// What an answer check is: a named function of one answer and its context that returns
// its findings, each naming the seed rule the answer held or broke (Schemathesis's
// checks, each a named function in one registry, run on every answer).
import type { Exchange } from "../../target/exchange.ts";
import type { WindowSighting } from "../../target/rate-window.ts";

/** An observation of one answer: a rule it held, or one it broke and why. */
export type Finding = { rule: string; held: true } | { rule: string; held: false; message: string };

export const held = (rule: string): Finding => ({ rule, held: true });
export const broke = (rule: string, message: string): Finding => ({ rule, held: false, message });

/** A `RateLimit` pair as the last answer of a credential showed it, and when (its request's time, the run's `elapsedSeconds` then). */
export interface WindowSeen extends WindowSighting {
  policy: string;
  remaining: number;
  quota?: number;
  window?: number;
}

/**
 * What earlier answers of the run showed, for the checks that judge over several answers
 * (a window counting down, the windows' names and lengths, Russian over the run) and for
 * the reports (statuses by operation). The checks read and add to it.
 */
export class AnswersSeen {
  /** The window each credential's last answer described, by credential label. */
  readonly windows = new Map<string, WindowSeen>();
  /** Window names seen in `RateLimit`. */
  readonly policies = new Set<string>();
  /** Window lengths (`w` of `RateLimit-Policy`) by window name. */
  readonly windowLengths = new Map<string, number>();
  /** Refusals asked for in Russian (`Accept-Language: ru`): their code and whether `user_message` was Russian. */
  readonly localisation: { code: string; russian: boolean }[] = [];
  /** Answers checked against the contract, per operation and status. */
  readonly statuses = new Map<string, Map<number, number>>();
}

export interface AnswerContext {
  /** The rule the request exercised: a departure that no rule owns is charged to it. */
  rule: string;
  /** The request's `Accept-Language`. */
  acceptLanguage?: string;
  /** The target is a static mock: echoes and counters are not judged. */
  staticMock: boolean;
  /** Seconds the suite has let pass on the target so far (waited, or moved its clock). */
  elapsedSeconds: number;
  seen: AnswersSeen;
}

export interface AnswerCheck {
  name: string;
  /**
   * The rules it charges (those of the contract's locations aside: broken-rule.ts names them),
   * for the bookkeeping that every seed rule has a check.
   */
  rules: readonly string[];
  check(exchange: Exchange, context: AnswerContext): Finding[];
}

/** The answer is a failure that must be the envelope (every one but the OAuth protocol routes' RFC 6749 errors). */
export function isEnvelopeFailure(ex: Exchange): boolean {
  return ex.status >= 400 && !ex.path.startsWith("/oauth/");
}
