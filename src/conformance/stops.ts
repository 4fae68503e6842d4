// What stops a request, a check or the whole run short: one home for those errors, and
// what the runner does with each (runner.ts). A request without an answer is a finding of
// the check that sent it; the others end the run, saying why once.
import type { SentRequest } from "./exchange-record.ts";

/** A request the server did not answer (a network failure, a timeout): a finding of the check that sent it. */
export class NoAnswer extends Error {
  constructor(
    readonly request: string,
    cause: unknown,
    /** What was sent, for a reproduction. */
    readonly sent?: SentRequest,
  ) {
    super(`${request}: no answer (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** Ends the run: nothing after it can be checked; the remaining rules are n/a with its message. */
export class RunStop extends Error {}

/** The main key is refused (`GET /v1/whoami` answers 401 or 403): nothing else can be checked. */
export class KeyRefused extends RunStop {}

/** Continuing would spend the caller's last requests, and waiting for the reset would pass `--max-wait`. */
export class QuotaStop extends RunStop {}
