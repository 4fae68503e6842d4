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
//   are reads or replay-safe by contract. Codes that retry cannot cure (`api_disabled`,
//   `submit_unavailable`, `upload_unavailable`, the subscription provider failures) are
//   returned at once.
// - one 401 `invalid_token` with a token provider: the provider is asked again with the
//   rejected token (it may refresh), outside the retry count.
// The caller's `AbortSignal` stops everything at once and is never retried.
import { HubAbortError, HubConnectionError, HubTimeoutError, isEnvelope, retryAfterSeconds } from "./errors.ts";
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

/** Codes that a retry does not cure even though their status is 5xx. */
const FINAL_5XX = new Set(["api_disabled", "submit_unavailable", "upload_unavailable", "subscription_resume_failed", "subscription_cancel_failed", "subscription_cancel_unsaved", "card_change_failed"]);

export function defaultReplaySafe(request: Request): boolean {
  if (request.method !== "POST") return true;
  if (request.headers.has("idempotency-key")) return true;
  const path = new URL(request.url).pathname;
  return REPLAY_SAFE_POSTS.some((p) => path.endsWith(p));
}

interface AnswerMeta {
  attempts: number;
  requestId: string | undefined;
}
const meta = new WeakMap<Response, AnswerMeta>();
/** How many attempts produced this answer (1 when it was not retried). */
export function attemptsOf(response: Response): number {
  return meta.get(response)?.attempts ?? 1;
}
/** The `X-Request-Id` the client sent on the attempt that produced this answer. */
export function sentRequestId(response: Response): string | undefined {
  return meta.get(response)?.requestId;
}

const TIMEOUT = Symbol("timeout");

export function createTransport(options: TransportOptions = {}): FetchLike {
  const fetchImpl: FetchLike = options.fetch ?? ((r) => globalThis.fetch(r));
  const requestId = options.requestId ?? randomId;
  const replaySafe = options.replaySafe ?? defaultReplaySafe;
  const backoffBase = options.backoffBase ?? 500;
  const backoffMax = options.backoffMax ?? 8_000;
  const maxRetryAfter = options.maxRetryAfter ?? 60;

  return async function transport(request: Request): Promise<Response> {
    const call = request as Request & CallOptions;
    const maxRetries = call.maxRetries ?? options.maxRetries ?? 2;
    const timeout = call.timeout ?? options.timeout ?? 60_000;
    const bare = call.hubBare === true;
    const userSignal = request.signal;
    const credentials = !bare && options.credentials && sameOrigin(request.url, options.origin) ? options.credentials : undefined;
    // The body is read once so that every attempt sends the same bytes.
    const body = request.body === null ? null : await request.arrayBuffer();
    let rejected: string | undefined;
    let reauthorized = false;

    for (let attempt = 0; ; attempt++) {
      if (userSignal.aborted) throw new HubAbortError({ cause: userSignal.reason });
      const headers = new Headers(request.headers);
      let token: string | undefined;
      if (!bare) {
        if (!headers.has("x-request-id")) headers.set("x-request-id", requestId());
        if (credentials) {
          token = await credentials({ rejected, signal: userSignal });
          if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
        }
      }
      const timer = new AbortController();
      const handle = setTimeout(() => timer.abort(TIMEOUT), timeout);
      let response: Response;
      try {
        response = await fetchImpl(new Request(request, { headers, body, signal: anySignal(userSignal, timer.signal) }));
      } catch (error) {
        if (userSignal.aborted) throw new HubAbortError({ cause: error });
        const failure = timer.signal.aborted
          ? new HubTimeoutError(`No answer within ${timeout} ms`, { cause: error })
          : new HubConnectionError(`Connection failed: ${describe(error)}`, { cause: error });
        if (attempt >= maxRetries || !replaySafe(request)) throw failure;
        await sleep(backoff(attempt, backoffBase, backoffMax), userSignal);
        continue;
      } finally {
        clearTimeout(handle);
      }
      const sent = { attempts: attempt + 1, requestId: headers.get("x-request-id") ?? undefined };
      meta.set(response, sent);
      const status = response.status;
      if (status < 400) return response;

      if (status === 401 && credentials && !reauthorized && token !== undefined) {
        const peeked = await peek(response);
        if (peeked.code === "invalid_token") {
          reauthorized = true;
          rejected = token;
          attempt--;
          continue;
        }
        return keep(peeked.response, sent);
      }
      if (status !== 429 && status < 500) return response;

      const peeked = await peek(response);
      const code = peeked.code;
      const retryable =
        status === 429
          ? code !== "too_many_streams" && !(code === "rate_limited" && peeked.reason === "concurrency")
          : !FINAL_5XX.has(code ?? "") && replaySafe(request);
      if (!retryable || attempt >= maxRetries) return keep(peeked.response, sent);
      const wait = retryAfterSeconds(response.headers, peeked.body);
      if (wait !== undefined && wait > maxRetryAfter) return keep(peeked.response, sent);
      await sleep(wait !== undefined ? wait * 1000 : backoff(attempt, backoffBase, backoffMax), userSignal);
    }
  };
}

function keep(response: Response, sent: AnswerMeta): Response {
  meta.set(response, sent);
  return response;
}

/** Reads an error answer once and rebuilds it, so the caller can still read its body. */
async function peek(response: Response): Promise<{ response: Response; body: unknown; code?: string; reason?: string }> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return { response, body: undefined };
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  const rebuilt = new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  if (!isEnvelope(body)) return { response: rebuilt, body };
  return { response: rebuilt, body, code: body.error.code, reason: body.error.details?.[0]?.reason };
}

export function backoff(attempt: number, base: number, max: number): number {
  const ceiling = Math.min(max, base * 2 ** attempt);
  // "Equal jitter": half fixed, half random, so retries of many clients spread out.
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new HubAbortError({ cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(handle);
      reject(new HubAbortError({ cause: signal!.reason }));
    };
    const handle = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `AbortSignal.any` where the runtime has it, else a linked controller. */
export function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const c = new AbortController();
  for (const s of [a, b]) {
    if (s.aborted) {
      c.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}

function sameOrigin(url: string, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  return url.startsWith(origin) && (url.length === origin.length || url[origin.length] === "/");
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
