// The transport: a `fetch` that openapi-fetch calls beneath its middleware. Per attempt
// it sets fresh credentials and an `X-Request-Id`, applies the timeout, and retries
// what the server or the network let it retry:
// - 429 (the request was refused, nothing was done): after `Retry-After` when the wait is
//   within the cap (a longer wait is returned to the caller at once), otherwise after a
//   backoff with jitter. `rate_limited` for busy slots (`concurrency`) and
//   `too_many_streams` are not retried blindly: waiting for a task or a stream to finish
//   is the caller's decision.
// - 5xx and connection failures, for requests that are safe to send again: every method
//   but POST, a POST carrying `Idempotency-Key` (a submit keeps the same key on every
//   attempt, because every attempt copies the same request), and the POST routes that
//   are reads or replay-safe by contract. Of the 5xx codes only `internal_error` and
//   `service_unavailable` are retried (and 5xx answers without the envelope, such as a
//   gateway's); the others (`api_disabled`, `submit_unavailable`, `upload_unavailable`,
//   the subscription provider failures) are returned at once.
// - a connection lost while the body is read (fewer bytes than its Content-Length) is a
//   connection failure too: every answer but an event stream is read whole here, so the
//   caller never meets a half-read body as a bare TypeError.
// - one 401 `invalid_token` with a token provider: the provider is asked again with the
//   rejected token (it may refresh), outside the retry count.
// The caller's `AbortSignal` stops everything at once and is never retried.
import { bodyOf, HubAbortError, HubConnectionError, HubTimeoutError, isEnvelope, retryAfterSeconds } from "./errors.ts";
import { randomId } from "./ids.ts";

export type FetchLike = (request: Request) => Promise<Response>;

/** Supplies the bearer credential per attempt; `rejected` is a token the API refused. */
export type Credentials = (context: { rejected?: string; signal: AbortSignal }) => string | undefined | Promise<string | undefined>;

export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Milliseconds an attempt may wait for the answer's headers (default 60 000). */
  timeout?: number;
  /** Longest `Retry-After` (seconds) the client waits for; longer waits are returned (default 60). */
  maxRetryAfter?: number;
  /** First backoff delay in milliseconds, doubled per retry, with jitter (default 500). */
  backoffBase?: number;
  /** Largest backoff delay in milliseconds (default 8 000). */
  backoffMax?: number;
  /** Whether a request may be sent again after a 5xx or a lost connection. */
  replaySafe?: (request: Request) => boolean;
}

export interface TransportOptions extends RetryOptions {
  fetch?: FetchLike;
  /** Credentials are sent only to this origin. */
  origin?: string;
  credentials?: Credentials;
  requestId?: () => string;
}

/** Per-call options, given in openapi-fetch's `init` (it copies unknown keys onto the Request). */
export interface CallOptions {
  maxRetries?: number;
  timeout?: number;
  /** Internal: send exactly the request's headers (no credentials, no request id). */
  hubBare?: boolean;
}

/** POST routes that are reads or replay-safe by contract (batch read, estimate, upload ticket, support message with `client_msg_id`, move). */
const REPLAY_SAFE_POSTS = ["/v1/generations/status", "/v1/pricing/estimate", "/v1/uploads", "/v1/support/messages", "/v1/library/move"];


export function defaultReplaySafe(request: Request): boolean {
  if (request.method !== "POST") return true;
  if (request.headers.has("idempotency-key")) return true;
  const path = new URL(request.url).pathname;
  return REPLAY_SAFE_POSTS.some((p) => path.endsWith(p));
}

const attempts = new WeakMap<Response, number>();
/** How many attempts produced this answer (1 when it was not retried). */
export function attemptsOf(response: Response): number {
  return attempts.get(response) ?? 1;
}

export function createTransport(options: TransportOptions = {}): FetchLike {
  const requestId = options.requestId ?? randomId;
  const replaySafe = options.replaySafe ?? defaultReplaySafe;
  const backoffBase = options.backoffBase ?? 500;
  const backoffMax = options.backoffMax ?? 8_000;
  const maxRetryAfter = options.maxRetryAfter ?? 60;

  return async function transport(input: Request): Promise<Response> {
    const call = input as Request & CallOptions;
    const url = call.url;
    const maxRetries = call.maxRetries ?? options.maxRetries ?? 2;
    const timeout = call.timeout ?? options.timeout ?? 60_000;
    const bare = call.hubBare === true;
    // Credentials go only to the API's origin (not to a storage address, say).
    const origin = options.origin;
    const credentials = !bare && (origin === undefined || `${url}/`.startsWith(`${origin}/`)) ? options.credentials : undefined;
    // Each attempt goes out as the call's Request with fresh headers and the body's bytes
    // (read once, so every attempt can send them). The caller's signal rides on the call.
    const { headers, signal: userSignal } = input;
    const body = input.body ? await input.arrayBuffer() : null;
    const callerId = headers.has("x-request-id");
    let sent: Headers;
    const attemptInit = (): RequestInit => ({ headers: sent, body });
    const safe = () => replaySafe(new Request(input, attemptInit()));
    let rejected: string | undefined;
    let reauthorized = false;

    for (let attempt = 0; ; attempt++) {
      if (userSignal?.aborted) throw new HubAbortError({ cause: userSignal.reason });
      sent = new Headers(headers);
      let token: string | undefined;
      if (!bare) {
        if (!callerId) sent.set("x-request-id", requestId());
        if (credentials) {
          const given = credentials({ rejected, signal: userSignal ?? (never ??= new AbortController().signal) });
          token = typeof given === "string" || given === undefined ? given : await given;
          if (token !== undefined) sent.set("authorization", `Bearer ${token}`);
        }
      }
      // The timeout races the answer's headers. It attaches no signal to the request: in
      // Node a signal on a request costs more than the rest of this layer together. An
      // attempt that times out is left to finish; its answer, if any, is discarded. One
      // promise per attempt settled by whichever comes first (Promise.race makes three).
      let handle: ReturnType<typeof setTimeout> | undefined;
      let response: Response;
      try {
        const pending = options.fetch ? options.fetch(new Request(input, attemptInit())) : globalThis.fetch(input, attemptInit());
        try {
          response = await new Promise<Response>((resolve, reject) => {
            handle = setTimeout(expire, timeout, pending, reject, timeout);
            pending.then(resolve, reject);
          });
        } finally {
          clearTimeout(handle);
        }
        // The body is read here, the event stream's aside: a connection lost after the head
        // (fewer bytes than Content-Length) is a lost connection, retried as one.
        response = await wholeBody(response);
      } catch (error) {
        if (userSignal?.aborted) throw new HubAbortError({ cause: error });
        const failure = error instanceof HubTimeoutError ? error : new HubConnectionError("Connection failed", { cause: error });
        if (attempt >= maxRetries || !safe()) throw failure;
        await sleep(backoff(attempt, backoffBase, backoffMax), userSignal);
        continue;
      }
      if (attempt) attempts.set(response, attempt + 1); // a first attempt's answer is not recorded (attemptsOf answers 1)
      const status = response.status;
      if (status < 400 || (status < 500 && status !== 429 && status !== 401)) return response;
      const { body: answer, code, reason } = await peek(response);
      if (status === 401) {
        // One 401 invalid_token with a token provider: ask it again with the refused token.
        if (code !== "invalid_token" || !credentials || reauthorized || token === undefined) return response;
        reauthorized = true;
        rejected = token;
        attempt--;
        continue;
      }
      const retryable =
        status === 429
          ? code !== "too_many_streams" && !(code === "rate_limited" && reason === "concurrency")
          : (code === undefined ? status !== 501 && status !== 505 : code === "internal_error" || code === "service_unavailable") && safe();
      const wait = retryAfterSeconds(response.headers, answer);
      if (!retryable || attempt >= maxRetries || (wait !== undefined && wait > maxRetryAfter)) return response;
      await sleep(wait !== undefined ? wait * 1000 : backoff(attempt, backoffBase, backoffMax), userSignal);
    }
  };
}

/**
 * The answer with its body read whole; an event stream (or a body-less answer) as it is.
 * Rejects when the connection is lost before the last byte.
 */
async function wholeBody(response: Response): Promise<Response> {
  if (response.body === null || (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
  const bytes = await response.arrayBuffer();
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** An attempt's time is up: its late answer is discarded (its body cancelled). */
function expire(pending: Promise<Response>, reject: (error: HubTimeoutError) => void, timeout: number): void {
  pending.then((late) => late.body?.cancel(), () => undefined);
  reject(new HubTimeoutError(`No answer within ${timeout} ms`));
}

/** A signal that never aborts, for credentials asked without a caller's signal (one per call costs). */
let never: AbortSignal | undefined;

/** Reads an error answer's copy, so the caller can still read the answer itself. */
async function peek(response: Response): Promise<{ body: unknown; code?: string; reason?: string }> {
  const body = await bodyOf(response.clone()).catch(() => undefined);
  return isEnvelope(body) ? { body, code: body.error.code, reason: body.error.details?.[0]?.reason } : { body };
}

export function backoff(attempt: number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** attempt);
  // "Equal jitter": half fixed, half random, so retries of many clients spread out.
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(handle);
      signal?.removeEventListener("abort", done);
      if (signal?.aborted) reject(new HubAbortError({ cause: signal.reason }));
      else resolve();
    };
    const handle = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
    if (signal?.aborted) done();
  });
}
