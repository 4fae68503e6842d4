// Fetch API Requests onto the hub's SimRequest, and its answers back into Responses:
// what the Mock Service Worker adapter does per request, in Node (msw/node) and in a
// browser (the service worker hands the page a Request and takes the Response back).
import { bodyLimitOf, tooLargeMessage } from "../http/body-limits.ts";
import type { Hub } from "../hub.ts";
import { unreachable, type BodyAnswer, type SimRequest, type SimResponse, type StreamAnswer } from "../pipeline/exchange.ts";

/** The request as the hub reads it, without its body (read next, within the limit). */
export function simRequestOf(request: Request, url: URL): SimRequest {
  const headers: SimRequest["headers"] = {};
  for (const [name, value] of request.headers) headers[name] = value;
  // Fetch joins a repeated field into one value ("a, b"); a credential (token68) has no
  // comma, so a comma means Authorization came more than once, which the hub refuses.
  const authorization = headers.authorization as string | undefined;
  if (authorization?.includes(",")) headers.authorization = authorization.split(",").map((v) => v.trim());
  // A Request carries no Host field of its own (the network layer adds it); the hub sees the one the URL names.
  headers.host ??= url.host;
  return { method: request.method.toUpperCase(), url: url.pathname + url.search, headers, baseUrl: url.origin };
}

/**
 * Answers one request with the hub: reads the body up to the route's limit (above it 413
 * `request_too_large` in the envelope, as the node:http adapter answers), then `hub.handle`.
 * Never throws: a failure inside answers 500 `internal_error` in the envelope.
 */
export async function answerWithHub(hub: Hub, request: Request, bodyLimit: number): Promise<Response> {
  const url = new URL(request.url);
  const req = simRequestOf(request, url);
  try {
    const limit = bodyLimitOf(req.method, url.pathname, bodyLimit);
    if (Number(request.headers.get("content-length")) > limit) return toResponse(hub, req, hub.refuse(req, "request_too_large", tooLargeMessage(limit), undefined, "body limit"), request.signal);
    if (request.body !== null) {
      const body = new Uint8Array(await request.arrayBuffer());
      if (body.byteLength > limit) return toResponse(hub, req, hub.refuse(req, "request_too_large", tooLargeMessage(limit), undefined, "body limit"), request.signal);
      req.body = body;
      // A browser never shows Content-Length to script or to a service worker (the network
      // layer adds it); the hub sees it as a server would (a storage PUT must match the ticket's).
      req.headers["content-length"] ??= String(body.byteLength);
    }
    return await toResponse(hub, req, hub.handle(req), request.signal);
  } catch (error) {
    console.error(`simulator: ${req.method} ${req.url} failed`, error);
    return toResponse(hub, req, hub.refuse(req, "internal_error"), request.signal);
  }
}

/**
 * The hub's envelope answer refusing `request` with an error code of the contract, as a
 * Response: for a one-off fault in front of the hub's handlers, which `/_sim/` has no
 * switch for (a transient 503 a client should retry, say):
 * `server.use(http.post(url, ({ request }) => refusalResponse(hub, request, "service_unavailable"), { once: true }))`.
 */
export function refusalResponse(hub: Hub, request: Request, code: string, message?: string): Promise<Response> {
  const req = simRequestOf(request, new URL(request.url));
  return toResponse(hub, req, hub.refuse(req, code, message), request.signal);
}

/**
 * The hub's answer as a Response; a deferred answer once it settles. Faults
 * (pipeline/faults.ts) become what a network failure is to `fetch`: a dropped connection
 * a network error (`Response.error()`), a truncated body a stream that fails after its
 * first bytes, a delay a wait before the answer.
 */
export async function toResponse(hub: Hub, req: SimRequest, answer: SimResponse, signal: AbortSignal): Promise<Response> {
  switch (answer.kind) {
    case "deferred": {
      const settled = await answer.deferred.catch(() => hub.refuse(req, "internal_error"));
      return toResponse(hub, req, settled, signal);
    }
    case "dropped":
      return Response.error();
    case "stream":
    case "body":
      if (answer.delayMs !== undefined) {
        const later = { ...answer, delayMs: undefined };
        await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        return toResponse(hub, req, later, signal);
      }
      if (answer.kind === "stream") return new Response(streamBody(answer, signal), { status: answer.status, headers: answer.headers });
      return bodyResponse(answer);
    default:
      return unreachable(answer);
  }
}

function bodyResponse(answer: BodyAnswer): Response {
  // The hub's bytes are views of plain ArrayBuffers (its Uint8Array type also admits shared ones).
  const body = answer.body as string | Uint8Array<ArrayBuffer> | undefined;
  if (answer.truncateAt !== undefined && body instanceof Uint8Array) return truncatedResponse(answer, body, answer.truncateAt);
  return new Response(body === undefined || answer.status === 204 || answer.status === 304 ? null : body, { status: answer.status, headers: answer.headers });
}

/**
 * Errors a body as a lost connection does, a moment after its last bytes were taken: a
 * copy of the body (msw/node keeps one, `Response.clone()` tees it) drops bytes not yet
 * read when its source fails at once.
 */
function failSoon(controller: ReadableStreamDefaultController<Uint8Array>, message: string): void {
  setTimeout(() => controller.error(new TypeError(message)), 0);
}

/** The head promises the whole body (Content-Length); the body fails after `sent` bytes. */
function truncatedResponse(answer: BodyAnswer, body: Uint8Array<ArrayBuffer>, sent: number): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (sent > 0) controller.enqueue(body.slice(0, sent));
    },
    pull(controller) {
      failSoon(controller, `terminated: the connection closed after ${sent} of ${body.length} bytes`);
    },
  });
  return new Response(stream, { status: answer.status, headers: { ...answer.headers, "content-length": String(body.length) } });
}

/**
 * An event stream as a ReadableStream that stays open: the hub writes frames into it
 * through its sink and ends it (`terminated`, a reset of the hub). The reader going away
 * (cancel) or the request being aborted stops the hub's stream, so it no longer counts
 * against the key's open streams.
 */
function streamBody(answer: StreamAnswer, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  let onAbort: (() => void) | undefined;
  let open = true;
  /** Cut with frames still queued: the reader gets them, then the error (pull). */
  let cutting = false;
  const cut = (controller: ReadableStreamDefaultController<Uint8Array>) => failSoon(controller, "network error: the event stream's connection was cut");
  /** True for the first of end, cancel and abort: the others then do nothing. */
  const close = (): boolean => {
    if (!open) return false;
    open = false;
    if (onAbort) signal.removeEventListener("abort", onAbort);
    return true;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop = answer.stream({
        write(chunk) {
          if (open) controller.enqueue(encoder.encode(chunk));
        },
        end() {
          if (close()) controller.close();
        },
        // A cut stream (the hub has forgotten it already): the reader sees a lost
        // connection once it has read the frames written before.
        abort() {
          if (!close()) return;
          if ((controller.desiredSize ?? 0) >= 1) cut(controller);
          else cutting = true;
        },
      });
      if (!open) return;
      onAbort = () => {
        if (!close()) return;
        stop?.();
        controller.error(signal.reason);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort);
    },
    pull(controller) {
      if (cutting) cut(controller);
    },
    cancel() {
      if (close()) stop?.();
    },
  });
}
