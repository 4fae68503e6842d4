// What stops a request, a check or the whole run short: one home for those errors, and
// what the runner does with each (run/runner.ts). A request without an answer is a finding of
// the check that sent it; the others end the run, saying why once.
import type { SentRequest } from "./record.ts";

/** A request the server did not answer (a network failure, a timeout): a finding of the check that sent it. */
export class NoAnswer extends Error {
  constructor(
    readonly request: string,
    cause: unknown,
    /** What was sent, for a reproduction. */
    readonly sent?: SentRequest,
    /** The rule the request exercised: the finding's. */
    readonly rule?: string,
  ) {
    super(`${request}: no answer (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** An answer larger than the suite keeps (`--max-answer-bytes`): not read further; a finding of the check that asked. */
export class AnswerTooLarge extends NoAnswer {
  constructor(request: string, limit: number, sent?: SentRequest, rule?: string) {
    super(request, undefined, sent, rule);
    this.message = `${request}: answer too large: more than ${limit} bytes (--max-answer-bytes), not read further`;
  }
}

/** Ends the run: nothing after it can be checked; the remaining rules are n/a with its message. */
export class RunStop extends Error {}

/** The main key is refused (`GET /v1/whoami` answers 401 or 403): nothing else can be checked. */
export class KeyRefused extends RunStop {}

/** Continuing would spend the caller's last requests, and waiting for the reset would pass `--max-wait`. */
export class QuotaStop extends RunStop {}

/** The server is gone: it cannot be reached, or it stopped answering. Before any answer, the run cannot start (the CLI's exit status 2). */
export class ServerGone extends RunStop {}

/** The connection to the server failed: refused, an unknown host, a TLS failure (a certificate no authority signed, ...). */
export class ServerUnreachable extends ServerGone {}

/** `SILENT_LIMIT` requests in a row got no answer within `--timeout`. */
export class ServerSilent extends ServerGone {}

/** Requests in a row without an answer within `--timeout` after which the run stops (each costs a whole timeout). */
export const SILENT_LIMIT = 3;

/**
 * Why a request could not reach the server at all, in a few words with the system's code
 * (`the connection was refused (ECONNREFUSED)`), or undefined when the failure is of
 * another kind (a connection lost mid-answer, a timeout).
 */
export function unreachableCause(error: unknown): string | undefined {
  let e = (error as { cause?: unknown })?.cause ?? error;
  if (e instanceof AggregateError && e.errors.length > 0) e = e.errors[0];
  const code = (e as { code?: unknown })?.code;
  const message = e instanceof Error ? e.message : String(e);
  // fetch will not connect to a port kept for another protocol (9, 25, 6000, ...).
  if (message === "bad port") return "fetch does not connect to this port, one kept for another protocol (bad port): use another";
  if (typeof code !== "string") return undefined;
  switch (code) {
    case "ECONNREFUSED":
      return `the connection was refused: nothing listens there (${code})`;
    case "ENOTFOUND":
      return `the host name does not resolve (${code})`;
    case "EAI_AGAIN":
      return `the host name could not be looked up now (${code})`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `no route to the host (${code})`;
    case "UND_ERR_CONNECT_TIMEOUT":
      return `the connection could not be made in time (${code})`;
  }
  if (/CERT|SSL|TLS/.test(code) || code === "EPROTO") {
    const untrusted = /SELF_SIGNED|UNABLE_TO_(GET_ISSUER|VERIFY)/.test(code) ? ": give the authority that signed it in NODE_EXTRA_CA_CERTS=ca.pem" : "";
    // Node 22+ appends its own advice after a semicolon ("; if the root CA is installed
    // locally, try ... --use-system-ca"): the cause is the first clause, our advice follows.
    return `TLS failed: ${message.split(";")[0]} (${code})${untrusted}`;
  }
  return undefined;
}
