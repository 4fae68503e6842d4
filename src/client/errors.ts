// Errors the client throws. Branch on `HubApiError.code` (the contract's error-code
// table), never on the status or the message. A FAILED generation is not an error: it
// is a successful answer carrying a record with `error.reason`.
import type { ErrorCode, ErrorDetail, ErrorEnvelope } from "../../generated/types.ts";
import { parseRateLimit, type RateLimit } from "./ratelimit.ts";

/** Base of every error this client throws. */
export class HubError extends Error {
  override name = "HubError";
}

/**
 * An HTTP answer that is not a success and does not carry the error envelope (for
 * example a proxy's 502 page). `body` holds its text.
 */
export class HubHttpError extends HubError {
  override name = "HubHttpError";
  /** HTTP status of the answer. */
  declare readonly status: number;
  /** The server's request id (`X-Request-Id` answer header), when present. */
  declare readonly request_id: string | undefined;
  /** Raw headers of the answer. */
  declare readonly headers: Headers;
  /** Body text (or the parsed body) of the answer. */
  declare readonly body: unknown;

  constructor(message: string, status: number, headers: Headers, body: unknown, requestId?: string) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.request_id = requestId ?? headers.get("x-request-id") ?? undefined;
  }

  /** `RateLimit` / `RateLimit-Policy` of the answer, parsed on read; undefined when absent. */
  get rateLimit(): RateLimit | undefined {
    return parseRateLimit(this.headers);
  }

  /** `Retry-After` in seconds (header, else `error.retry_after_seconds`), when given. */
  get retryAfter(): number | undefined {
    return retryAfterSeconds(this.headers, this.body);
  }
}

/** A refusal carried by the error envelope (`{ error: { code, message, ... } }`). */
export class HubApiError extends HubHttpError {
  override name = "HubApiError";
  /** Stable machine token from the contract's error-code table. */
  declare readonly code: ErrorCode;
  /** Human wording (English, or Russian with `Accept-Language: ru`). */
  declare readonly user_message: string;
  /** Per-field causes, where the refusal has them. */
  declare readonly details: ErrorDetail[] | undefined;
  /** The envelope as received. */
  declare readonly body: ErrorEnvelope;

  constructor(status: number, headers: Headers, envelope: ErrorEnvelope) {
    const e = envelope.error;
    super(`${e.code}: ${e.message}`, status, headers, envelope, e.request_id || undefined);
    this.code = e.code;
    this.user_message = e.user_message;
    this.details = e.details;
  }

  /** The `reason` of the first detail, e.g. `concurrency` for a busy-slot `rate_limited`. */
  get reason(): ErrorDetail["reason"] | undefined {
    return this.details?.[0]?.reason;
  }
}

/**
 * The event stream ended with a `terminated` frame: access was withdrawn while it was
 * open. `status` is the stream's own (200); `code` says why. The stream is not reopened.
 */
export class HubStreamTerminatedError extends HubApiError {
  override name = "HubStreamTerminatedError";
}

/** The request never got an answer: DNS, refused or reset connection, dead stream. */
export class HubConnectionError extends HubError {
  override name = "HubConnectionError";
}

/** No answer within the configured timeout (after the configured retries). */
export class HubTimeoutError extends HubError {
  override name = "HubTimeoutError";
}

/** The caller aborted through its `AbortSignal`; never retried. */
export class HubAbortError extends HubError {
  override name = "AbortError";
  constructor(options?: { cause?: unknown }) {
    super("The request was aborted", options);
  }
}

export function isEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof (body as { error?: { code?: unknown } } | null)?.error?.code === "string";
}

/** The error for a non-success answer: `HubApiError` for the envelope, else `HubHttpError`. */
export function errorFromAnswer(response: Response, body: unknown): HubHttpError {
  if (isEnvelope(body)) return new HubApiError(response.status, response.headers, body);
  return new HubHttpError(`HTTP ${response.status}`, response.status, response.headers, body);
}

/** The body of an answer: parsed JSON, else its text. */
export async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function retryAfterSeconds(headers: Headers, body: unknown): number | undefined {
  // The contract sends integer seconds (never an HTTP date): the header, else the envelope's field.
  for (const seconds of [Number(headers.get("retry-after") ?? NaN), (body as ErrorEnvelope | undefined)?.error?.retry_after_seconds]) {
    if (typeof seconds === "number" && seconds >= 0) return seconds;
  }
  return undefined;
}
