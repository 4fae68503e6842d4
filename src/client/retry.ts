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
  const fetchImpl: FetchLike = options.fetch ?? ((r) => globalThis.fetch(r));
  const requestId = options.requestId ?? randomId;
  const replaySafe = options.replaySafe ?? defaultReplaySafe;
  const backoffBase = options.backoffBase ?? 500;
  const backoffMax = options.backoffMax ?? 8_000;
  const maxRetryAfter = options.maxRetryAfter ?? 60;

  return async function transport(request: Request): Promise<Response> {
    const call = request as Request & CallOptions & Partial<HubRequest>;
    const maxRetries = call.maxRetries ?? options.maxRetries ?? 2;
    const timeout = call.timeout ?? options.timeout ?? 60_000;
    const bare = call.hubBare === true;
    const credentials = !bare && options.credentials && sameOrigin(request.url, options.origin) ? options.credentials : undefined;
    // A request built by HubRequest (every openapi-fetch call) is sent itself on the first
    // attempt and keeps its body for later ones; other requests are copied per attempt
    // from their bytes. The caller's signal rides on the request itself.
    const own = "hubBody" in call && !(call.hubBody instanceof ReadableStream);
    const userSignal = request.signal;
    const body = own ? (call.hubBody ?? null) : request.body === null ? null : await request.arrayBuffer();
    const callerId = request.headers.has("x-request-id");
    let rejected: string | undefined;
    let reauthorized = false;

    for (let attempt = 0; ; attempt++) {
      if (userSignal.aborted) throw new HubAbortError({ cause: userSignal.reason });
      const first = own && attempt === 0;
      const headers = first ? request.headers : new Headers(request.headers);
      let token: string | undefined;
      if (!bare) {
        if (!callerId) headers.set("x-request-id", requestId());
        if (credentials) {
          const given = credentials({ rejected, signal: userSignal });
          token = typeof given === "string" || given === undefined ? given : await given;
          if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
        }
      }
      // The timeout races the answer's headers. It attaches no signal to the request: in
      // Node a signal on a request costs more than the rest of this layer together. An
      // attempt that times out is left to finish; its answer, if any, is discarded.
      let handle: ReturnType<typeof setTimeout> | undefined;
      let timedOut = false;
      let response: Response;
      try {
        const pending = fetchImpl(first ? request : new Request(request, { headers, body }));
        response = await Promise.race([
          pending,
          new Promise<never>((_, reject) => {
            handle = setTimeout(() => {
              timedOut = true;
              pending.then((late) => late.body?.cancel(), () => undefined);
              reject(new HubTimeoutError(`No answer within ${timeout} ms`));
            }, timeout);
          }),
        ]);
      } catch (error) {
        if (userSignal.aborted) throw new HubAbortError({ cause: error });
        const failure = timedOut ? (error as HubTimeoutError) : new HubConnectionError("Connection failed", { cause: error });
        if (attempt >= maxRetries || !replaySafe(request)) throw failure;
        await sleep(backoff(attempt, backoffBase, backoffMax), userSignal);
        continue;
      } finally {
        clearTimeout(handle);
      }
      const sent = attempt + 1;
      attempts.set(response, sent);
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
          : (code === undefined ? status !== 501 && status !== 505 : code === "internal_error" || code === "service_unavailable") && replaySafe(request);
      if (!retryable || attempt >= maxRetries) return keep(peeked.response, sent);
      const wait = retryAfterSeconds(response.headers, peeked.body);
      if (wait !== undefined && wait > maxRetryAfter) return keep(peeked.response, sent);
      await sleep(wait !== undefined ? wait * 1000 : backoff(attempt, backoffBase, backoffMax), userSignal);
    }
  };
}

/**
 * The Request class openapi-fetch builds every call with: it keeps its body, so the
 * first attempt sends this very request and retries are built without copying it.
 */
export class HubRequest extends Request {
  readonly hubBody: BodyInit | null | undefined;
  constructor(input: RequestInfo | URL, init: RequestInit = {}) {
    super(input, init);
    this.hubBody = init.body;
  }
}

function keep(response: Response, sent: number): Response {
  attempts.set(response, sent);
  return response;
}

/** Reads an error answer once and rebuilds it, so the caller can still read its body. */
async function peek(response: Response): Promise<{ response: Response; body: unknown; code?: string; reason?: string }> {
  const body = await bodyOf(response).catch(() => undefined);
  const rebuilt = new Response(typeof body === "string" || body === undefined ? body : JSON.stringify(body), response);
  return isEnvelope(body) ? { response: rebuilt, body, code: body.error.code, reason: body.error.details?.[0]?.reason } : { response: rebuilt, body };
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

/** Aborts when either does (`AbortSignal.any`: Node 20.3+, every current browser). */
export function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  return AbortSignal.any([a, b]);
}

function sameOrigin(url: string, origin: string | undefined): boolean {
  if (origin === undefined) return true;
  return url.startsWith(origin) && (url.length === origin.length || url[origin.length] === "/");
}

