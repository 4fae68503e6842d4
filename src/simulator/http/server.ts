// The Fastify 5 adapter: maps each Node request onto the hub's SimRequest and writes
// the hub's answer back. Fastify's own routing, body parsing and error bodies are kept
// out of the way: one catch-all route, raw bodies, and every framework error mapped to
// the API's envelope (a Fastify error body must never leak).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { envelope, refuse } from "../domain/refusal.ts";
import { unreachable, type BodyAnswer, type SimRequest, type SimResponse, type StreamAnswer } from "../pipeline/exchange.ts";
import type { Hub } from "../hub.ts";
import { newRequestId } from "../state/util.ts";
import { bodyLimitOf, tooLargeMessage, UPLOAD_ROUTES } from "./body-limits.ts";
import { corsOpens } from "./cors.ts";
import { docsFile, docsHeaders } from "./docs.ts";
import { hostAllowList, hostnameOf } from "./hosts.ts";

export interface ServerOptions {
  /** Largest request body accepted; above it answers 413 `request_too_large`. */
  bodyLimit: number;
  /**
   * Open CORS for local work: `true` reflects any origin, a list allows those origins. It
   * opens only the routes a browser app calls (http/cors.ts), never /_sim/ or /site/.
   */
  cors: boolean | readonly string[];
  /**
   * Host names answered besides loopback names and IP addresses (http/hosts.ts): the
   * name listened on, --public-url's, and --allowed-hosts (`.example.com` for a domain,
   * `*` for any). Any other Host is refused (DNS rebinding).
   */
  allowedHosts: readonly string[];
  /** Why the control interface is off (a non-loopback --host without --expose-control); /_sim/ then answers 404 saying so. */
  controlOff?: string;
  /** Folder served at /docs when it exists. */
  docsDir: string | undefined;
  /** True while the docs are being built into `docsDir`: /docs then answers a page that says so. */
  docsBuilding?: () => boolean;
  /** Seconds a client may take to send a whole request (headers and body). */
  requestTimeoutSeconds: number;
  /** Largest header block (request line included); above it answers 413. */
  maxHeaderBytes: number;
  logger: boolean;
}

const EXPOSED = "X-Request-Id, RateLimit, RateLimit-Policy, Retry-After, Location, ETag, WWW-Authenticate";
const ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Request-Id, Last-Event-ID, Accept-Language, If-None-Match";
const HOST = /^[A-Za-z0-9.\-_:[\]]{1,255}$/;

// Base addresses by Host header: the same few values arrive on every request. A proxy's
// X-Forwarded-Host is not read: any caller could send one, and the base address decides
// the session cookie's own origin and the OAuth issuer; --public-url names the address a
// proxy shows instead.
const baseByHost = new Map<string, string | null>();

function baseUrlOf(raw: IncomingMessage, fallback: string): string {
  const host = raw.headers.host;
  if (host === undefined) return fallback;
  let base = baseByHost.get(host);
  if (base === undefined) {
    base = HOST.test(host) ? `http://${host}` : null;
    if (baseByHost.size > 1000) baseByHost.clear();
    baseByHost.set(host, base);
  }
  return base ?? fallback;
}

/**
 * Every value of a repeated Authorization header, or undefined when it comes at most once.
 * Node keeps only the first in `headers`; the hub must see both to refuse the request.
 */
function repeatedAuthorization(rawHeaders: readonly string[]): string[] | undefined {
  let values: string[] | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === "authorization") (values ??= []).push(rawHeaders[i + 1]!);
  }
  return values && values.length > 1 ? values : undefined;
}

function corsAllows(option: ServerOptions["cors"], origin: string | undefined, path: string): origin is string {
  if (!origin || option === false || !corsOpens(path)) return false;
  return option === true || option.includes(origin);
}

/** What /docs answers while the site is first built (a few seconds on a fresh install). */
const DOCS_BUILDING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="1"><title>Building the reference docs</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem">
<h1>Building the reference docs</h1>
<p>The simulator is building the docs from the contract. This page reloads itself when they are ready; the API under <code>/v1</code> already answers.</p>
</body></html>
`;

/** A complete raw answer for a socket whose request Node could not parse. */
function rawAnswer(status: number, reason: string, requestId: string, body: string): string {
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nCache-Control: private, no-store\r\nConnection: close\r\n\r\n${body}`;
}

/** The path of a request, without its query. */
function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/** Why a Host is refused, and the flag that allows it. */
function hostRefused(host: string): string {
  const name = hostnameOf(host) ?? host;
  return `The Host ${JSON.stringify(host.slice(0, 200))} is not a name of this simulator: a page of another site may have pointed its own name at this machine (DNS rebinding), so only loopback names (localhost, *.localhost), IP addresses and the names it was given are answered. To reach it by this name, start it with --allowed-hosts ${JSON.stringify(name.slice(0, 200))} (or SIM_ALLOWED_HOSTS).`;
}

/** Why a preflight is refused, and what to do instead. */
function closedCors(origin: string, path: string): string {
  const shown = JSON.stringify(origin.slice(0, 200));
  if (!corsOpens(path)) {
    return `No cross-origin access to ${path.slice(0, 200)} for ${origin.slice(0, 200)}: CORS never opens here (the control interface /_sim/, the site's pages and forms, /oauth/authorize and the docs are for the simulator's own pages and tools). --cors opens /v1, the storage upload PUT and the OAuth routes a browser app calls.`;
  }
  return `No cross-origin access for ${origin.slice(0, 200)}: browsers cannot send API keys or tokens to /v1 (CORS for Authorization is closed, as on the real hub). Call the API through your dev server's proxy, or start the simulator with --cors ${shown} for local work.`;
}

export function createServer(hub: Hub, options: ServerOptions): FastifyInstance {
  let fallbackBase = "http://127.0.0.1";
  const allowsHost = hostAllowList(options.allowedHosts);

  const app = Fastify({
    logger: options.logger,
    bodyLimit: options.bodyLimit,
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    return503OnClosing: false,
    requestTimeout: options.requestTimeoutSeconds * 1000,
    routerOptions: { maxParamLength: 1 << 20 },
    // A request without Host reaches the handler (which refuses it in the envelope) instead
    // of Node's bare 400.
    http: { maxHeaderSize: options.maxHeaderBytes, requireHostHeader: false },
    // A URL Fastify cannot decode still goes to the hub, which answers 404 in the envelope.
    frameworkErrors: (_error, request, reply) => serve(request, reply),
    // Requests Node cannot parse (header block too large, bad request line, timeout).
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      if (!socket.writable || error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
        socket.destroy();
        return;
      }
      const tooLarge = error.code === "HPE_HEADER_OVERFLOW" || error.code === "HPE_URI_OVERFLOW";
      const code = tooLarge ? "request_too_large" : "invalid_request";
      const requestId = newRequestId();
      const body = JSON.stringify(envelope(refuse(code, { message: tooLarge ? "The request line or headers are larger than the API accepts." : "The request could not be parsed." }), requestId, "en"));
      socket.end(rawAnswer(tooLarge ? 413 : 400, tooLarge ? "Payload Too Large" : "Bad Request", requestId, body));
    },
  });

  // Bodies reach the hub raw; it parses JSON itself so every fault gets the envelope.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: options.bodyLimit }, (_req, body, done) => done(null, body));

  function simRequest(request: FastifyRequest): SimRequest {
    const raw = request.raw;
    const body = request.body;
    const authorizations = repeatedAuthorization(raw.rawHeaders);
    return {
      method: raw.method ?? "GET",
      url: raw.url ?? "/",
      headers: authorizations ? { ...raw.headers, authorization: authorizations } : raw.headers,
      body: Buffer.isBuffer(body) ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : undefined,
      baseUrl: baseUrlOf(raw, fallbackBase),
      remoteAddress: raw.socket.remoteAddress,
    };
  }

  function corsHeaders(request: FastifyRequest): Record<string, string> {
    const origin = request.headers.origin;
    if (!corsAllows(options.cors, origin, pathOf(request))) return {};
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED };
  }

  /**
   * Writes the hub's answer to Node's response itself (Fastify's reply is hijacked: a
   * string body then leaves in one write with the head, one packet on the wire, which
   * Fastify's send does not do). Fastify no longer sees what fails after the hijack, so
   * every failure here, now or in a later callback, still ends the exchange: a 500 in the
   * envelope while nothing is written yet, else the connection closes.
   */
  function send(request: FastifyRequest, reply: FastifyReply, answer: SimResponse): void {
    reply.hijack();
    try {
      deliver(request, reply, answer);
    } catch (error) {
      failed(request, reply.raw, error);
    }
  }

  function deliver(request: FastifyRequest, reply: FastifyReply, answer: SimResponse): void {
    switch (answer.kind) {
      case "deferred":
        answer.deferred.then(
          (settled) => send(request, reply, settled),
          () => send(request, reply, hub.refuse(simRequest(request), "internal_error")),
        );
        return;
      // Faults (pipeline/faults.ts): no answer at all, or the answer later.
      case "dropped":
        request.raw.socket.destroy();
        return;
      case "stream":
      case "body":
        if (answer.delayMs !== undefined) {
          const later = { ...answer, delayMs: undefined };
          setTimeout(() => send(request, reply, later), answer.delayMs);
          return;
        }
        if (answer.kind === "stream") writeStream(request, reply.raw, answer);
        else writeBody(request, reply.raw, answer);
        return;
      default:
        unreachable(answer);
    }
  }

  /** A failure after the hijack: the envelope's 500 while the head is unwritten, else the connection closes. */
  function failed(request: FastifyRequest, res: ServerResponse, error: unknown): void {
    if (options.logger) request.log.error(error);
    else console.error(`simulator: ${request.raw.method} ${request.raw.url} could not be answered`, error);
    if (!res.headersSent && !res.destroyed) {
      try {
        const answer = hub.refuse(simRequest(request), "internal_error");
        res.writeHead(500, { ...answer.headers, "content-length": String(Buffer.byteLength(answer.body as string)), connection: "close" });
        res.end(answer.body);
        return;
      } catch {
        // Even the envelope could not be written: close.
      }
    }
    res.destroy();
  }

  function headersOf(request: FastifyRequest, answer: BodyAnswer | StreamAnswer): Record<string, string> {
    return options.cors === false ? answer.headers : { ...answer.headers, ...corsHeaders(request) };
  }

  function writeStream(request: FastifyRequest, res: ServerResponse, answer: StreamAnswer): void {
    res.writeHead(answer.status, headersOf(request, answer));
    res.flushHeaders();
    let stop: (() => void) | undefined;
    let ended = false;
    const sink = {
      write(chunk: string) {
        if (!ended && !res.destroyed) res.write(chunk);
      },
      end() {
        if (ended) return;
        ended = true;
        if (!res.destroyed) res.end();
      },
      // A cut stream: the socket closes without the last chunk, as a lost connection
      // does, once the frames written so far have left.
      abort() {
        if (ended) return;
        ended = true;
        const socket = res.socket;
        if (socket) socket.end(() => socket.destroy());
        else res.destroy();
      },
    };
    stop = answer.stream(sink);
    // The client went away (or the stream ended): forget the stream either way.
    if (res.destroyed || request.raw.socket.destroyed) stop();
    else res.on("close", () => stop?.());
  }

  function writeBody(request: FastifyRequest, res: ServerResponse, answer: BodyAnswer): void {
    const headers = headersOf(request, answer);
    const body = answer.body;
    const bytes = body === undefined ? undefined : typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (bytes !== undefined) headers["content-length"] = String(typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.length);
    if (answer.truncateAt !== undefined && bytes instanceof Buffer) {
      // A truncated body: the head promises every byte, part of them follows, then the socket closes.
      res.writeHead(answer.status, headers);
      res.write(bytes.subarray(0, answer.truncateAt), () => res.destroy());
      return;
    }
    res.writeHead(answer.status, headers);
    res.end(bytes);
    if (options.logger) request.log.info({ statusCode: answer.status }, "request completed");
  }

  function serve(request: FastifyRequest, reply: FastifyReply): void {
    const host = request.raw.headers.host;
    // Every route, docs and preflight included: HTTP/1.1 requires Host (RFC 9112).
    if (host === undefined && request.raw.httpVersion === "1.1") {
      send(request, reply, hub.refuse(simRequest(request), "invalid_request", "An HTTP/1.1 request must carry a Host header.", [{ field: "Host", reason: "required", message: "Host is required" }], "host header"));
      return;
    }
    if (host !== undefined && !allowsHost(host)) {
      send(request, reply, hub.refuse(simRequest(request), "origin_mismatch", hostRefused(host), undefined, "host allow-list"));
      return;
    }
    const path = pathOf(request);
    if (options.controlOff && (path === "/_sim" || path.startsWith("/_sim/"))) {
      send(request, reply, hub.refuse(simRequest(request), "not_found", options.controlOff, undefined, "control off"));
      return;
    }
    const origin = request.headers.origin;
    const preflight = request.method === "OPTIONS" && origin !== undefined && request.headers["access-control-request-method"] !== undefined;
    if (preflight && !corsAllows(options.cors, origin, path)) {
      // Closed as on the real hub; the answer (visible in the browser's network panel) says why and what to do.
      send(request, reply, hub.refuse(simRequest(request), "not_found", closedCors(origin!, path), undefined, "cors"));
      return;
    }
    if (preflight) {
      reply.code(204).headers({
        "access-control-allow-origin": origin!,
        "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE",
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": "600",
        vary: "Origin",
      }).send();
      return;
    }
    if (options.docsDir && path.startsWith("/docs") && (request.method === "GET" || request.method === "HEAD")) {
      const file = path === "/docs" || path.startsWith("/docs/") ? docsFile(options.docsDir, path) : undefined;
      if (file) {
        if (path === "/docs") {
          reply.code(301).header("location", "/docs/").send();
          return;
        }
        reply.code(200).headers(docsHeaders(path, file)).send(file.bytes);
        return;
      }
      if (options.docsBuilding?.()) {
        reply.code(503).headers({ "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": "1", "x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'; frame-ancestors 'none'" }).send(DOCS_BUILDING_PAGE);
        return;
      }
    }
    send(request, reply, hub.handle(simRequest(request)));
  }

  app.route({ method: app.supportedMethods as string[], url: "/", handler: serve });
  app.route({ method: app.supportedMethods as string[], url: "/*", handler: serve });
  // An upload's PUT carries the file itself, up to the ticket's ceiling (40 MiB), above the JSON body limit.
  for (const url of UPLOAD_ROUTES) app.route({ method: "PUT", url, bodyLimit: bodyLimitOf("PUT", url, options.bodyLimit), handler: serve });
  app.setNotFoundHandler(serve);
  // An Expect other than 100-continue: Node would answer a bare 417 itself. The expectation
  // is ignored instead (RFC 9110 allows either) and the request is served as usual.
  app.server.on("checkExpectation", (req, res) => app.server.emit("request", req, res));

  app.setErrorHandler((error: Error & { code?: string; statusCode?: number }, request, reply) => {
    if (reply.sent || request.raw.destroyed) return;
    const req = simRequest(request);
    let answer: SimResponse;
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE" || error.statusCode === 413) {
      answer = hub.refuse(req, "request_too_large", tooLargeMessage(options.bodyLimit), undefined, "body limit");
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      answer = hub.refuse(req, "invalid_request", "The request body could not be read.", undefined, "body reading");
    } else {
      if (options.logger) request.log.error(error);
      else console.error("simulator: request failed", error);
      answer = hub.refuse(req, "internal_error");
    }
    send(request, reply, answer);
  });

  app.addHook("onListen", async () => {
    const address = app.server.address();
    if (address && typeof address === "object") {
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      fallbackBase = `http://${host}:${address.port}`;
    }
  });

  return app;
}
