// The checks every answer gets, in one registry and in order, and the judge that runs them:
// each finding is recorded against its seed rule; a rule an answer held passes once for
// that answer unless the same answer broke it.
import type { Cited, Exchange } from "../../target/exchange.ts";
import type { Delivery, ExchangeSink } from "../../target/sink.ts";
import type { Frame } from "../../target/stream.ts";
import type { Results } from "../results.ts";
import { AnswersSeen, type AnswerCheck, type AnswerContext, type Finding } from "./check.ts";
import { matchesContract, requestIdEcho, v1Headers } from "./contract.ts";
import { notModified, textAsWritten } from "./echoes.ts";
import { englishMessage, envelopeRequestId, errorCodeStatus, failureIsEnvelope, noStackTrace, russianOnRequest } from "./envelope.ts";
import { centiCredits, jsonBody, snakeCase } from "./fields.ts";
import { frameFindings } from "./frames.ts";
import { rateLimitForm, rateLimitOnHandlerRefusal, rateLimitWindow } from "./rate-limit.ts";

export { AnswersSeen, type AnswerCheck, type AnswerContext, type Finding, type WindowSeen } from "./check.ts";
export { BEFORE_A_HANDLER } from "./rate-limit.ts";

/** Every answer the suite gets (but the bare ones: a preflight, a PUT to storage) goes through these, in this order. */
export const ANSWER_CHECKS: readonly AnswerCheck[] = [
  matchesContract,
  v1Headers,
  requestIdEcho,
  failureIsEnvelope,
  errorCodeStatus,
  noStackTrace,
  englishMessage,
  russianOnRequest,
  envelopeRequestId,
  jsonBody,
  snakeCase,
  centiCredits,
  rateLimitForm,
  rateLimitWindow,
  rateLimitOnHandlerRefusal,
  notModified,
  textAsWritten,
];

/** Rules of the seed that say the same thing: a departure from one is a departure from each (every failure answers the envelope: W-5 and EP-1). */
const SAME_RULE: Readonly<Record<string, readonly string[]>> = { "W-5": ["EP-1"] };

/** The sink that holds every answer and frame to the answer checks, and records their findings. */
export class AnswerJudge implements ExchangeSink {
  readonly seen = new AnswersSeen();

  constructor(
    private readonly results: Results,
    private readonly staticMock: boolean,
  ) {}

  /** Runs every answer check on `ex` (a bare one, not an API answer, is not judged). */
  exchange(ex: Exchange, how: Delivery): void {
    if (how.bare) return;
    if (ex.operation) {
      const seen = this.seen.statuses.get(ex.operation.operationId) ?? new Map<number, number>();
      seen.set(ex.status, (seen.get(ex.status) ?? 0) + 1);
      this.seen.statuses.set(ex.operation.operationId, seen);
    }
    const context: AnswerContext = { rule: how.rule, acceptLanguage: ex.record.sent.headers["accept-language"], staticMock: this.staticMock, elapsedSeconds: how.elapsedSeconds, seen: this.seen };
    this.#record(ANSWER_CHECKS.flatMap((check) => check.check(ex, context)), ex.cite);
  }

  /** Checks a frame of the stream that `opened` opened. */
  frame(frame: Frame, opened: Exchange): void {
    this.#record(frameFindings(frame), { ...opened.cite, request: `frame ${frame.event} of ${opened.cite.request}` });
  }

  /** A stream that `opened` opened sent a frame larger than the suite reads. */
  overflow(opened: Exchange, rule: string, message: string): void {
    this.results.fail(rule, message, opened.cite);
  }

  #record(findings: Finding[], cite: Cited): void {
    const failed = new Set<string>();
    const held = new Set<string>();
    for (const f of findings) {
      for (const rule of [f.rule, ...(f.held ? [] : (SAME_RULE[f.rule] ?? []))]) {
        if (f.held) held.add(rule);
        else {
          failed.add(rule);
          this.results.fail(rule, f.message, cite);
        }
      }
    }
    for (const rule of held) if (!failed.has(rule)) this.results.pass(rule);
  }
}
