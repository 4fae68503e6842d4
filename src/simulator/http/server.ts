// The Fastify 5 adapter: maps each Node request onto the hub's SimRequest and writes
// the hub's answer back. Fastify's own routing, body parsing and error bodies are kept
// out of the way: one catch-all route, raw bodies, and every framework error mapped to
// the API's envelope (a Fastify error body must never leak).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { envelope, refuse, Refusal } from "../domain/refusal.ts";
import { unreachable, type BodyAnswer, type SimRequest, type SimResponse, type StreamAnswer } from "../pipeline/exchange.ts";
import type { Hub } from "../hub.ts";
import { isRouteRefused, SANDBOX_HEADER, Sandboxes } from "../sandboxes.ts";
import { newRequestId } from "../state/util.ts";
import { bodyLimitOf, tooLargeMessage, UPLOAD_ROUTES } from "./body-limits.ts";
import { corsAllows, frontDoor, type Door } from "./front-door.ts";
import { hostAllowList } from "./hosts.ts";

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

/** A complete raw answer for a socket whose request Node could not parse. */
function rawAnswer(status: number, reason: string, requestId: string, body: string): string {
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nCache-Control: private, no-store\r\nConnection: close\r\n\r\n${body}`;
}

/** The path of a request (or of a URL's path and query), without its query. */
function pathOf(request: FastifyRequest | string): string {
  const url = typeof request === "string" ? request : (request.raw.url ?? "/");
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The server in front of `source`: a simulator's sandboxes and default hub (startSimulator),
 * or one hub made alone (no sandbox is then reached: a sandbox hint is refused).
 */
export function createServer(source: Hub | Sandboxes, options: ServerOptions): FastifyInstance {
  const front = source instanceof Sandboxes ? source : Sandboxes.alone(source);
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

  /** The request as the hub sees it: `url` and `basePath` when the front door routed it by a sandbox's base path. */
  function simRequest(request: FastifyRequest, url?: string, basePath?: string): SimRequest {
    const raw = request.raw;
    const body = request.body;
    const authorizations = repeatedAuthorization(raw.rawHeaders);
    return {
      method: raw.method ?? "GET",
      url: url ?? raw.url ?? "/",
      headers: authorizations ? { ...raw.headers, authorization: authorizations } : raw.headers,
      body: Buffer.isBuffer(body) ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength) : undefined,
      baseUrl: baseUrlOf(raw, fallbackBase),
      remoteAddress: raw.socket.remoteAddress,
      basePath,
    };
  }

  function corsHeaders(request: FastifyRequest, path: string): Record<string, string> {
    const origin = request.headers.origin;
    if (!corsAllows(options.cors, origin, path)) return {};
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED };
  }

  /**
   * Writes the hub's answer to Node's response itself (Fastify's reply is hijacked: a
   * string body then leaves in one write with the head, one packet on the wire, which
   * Fastify's send does not do). Fastify no longer sees what fails after the hijack, so
   * every failure here, now or in a later callback, still ends the exchange: a 500 in the
   * envelope while nothing is written yet, else the connection closes. `hub` is the one
   * that answered, `path` the path it answered (what CORS is decided on).
   */
  function send(request: FastifyRequest, reply: FastifyReply, answer: SimResponse, hub: Hub, path: string): void {
    reply.hijack();
    try {
      deliver(request, reply, answer, hub, path);
    } catch (error) {
      failed(request, reply.raw, error, hub);
    }
  }

  function deliver(request: FastifyRequest, reply: FastifyReply, answer: SimResponse, hub: Hub, path: string): void {
    switch (answer.kind) {
      case "deferred":
        answer.deferred.then(
          (settled) => send(request, reply, settled, hub, path),
          () => send(request, reply, hub.refuse(simRequest(request), "internal_error"), hub, path),
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
          setTimeout(() => send(request, reply, later, hub, path), answer.delayMs);
          return;
        }
        if (answer.kind === "stream") writeStream(request, reply.raw, answer, path);
        else writeBody(request, reply.raw, answer, path);
        return;
      default:
        unreachable(answer);
    }
  }

  /** A failure after the hijack: the envelope's 500 while the head is unwritten, else the connection closes. */
  function failed(request: FastifyRequest, res: ServerResponse, error: unknown, hub: Hub): void {
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

  function headersOf(request: FastifyRequest, answer: BodyAnswer | StreamAnswer, path: string): Record<string, string> {
    return options.cors === false ? answer.headers : { ...answer.headers, ...corsHeaders(request, path) };
  }

  function writeStream(request: FastifyRequest, res: ServerResponse, answer: StreamAnswer, path: string): void {
    res.writeHead(answer.status, headersOf(request, answer, path));
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

  /** A body answer; `headers` as given (an answer of the front door's own carries no CORS headers but its own). */
  function writeBody(request: FastifyRequest, res: ServerResponse, answer: BodyAnswer, path: string | undefined): void {
    const headers = path === undefined ? { ...answer.headers } : headersOf(request, answer, path);
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

  // The front door's steps (front-door.ts), and the one Door they read, reused: serve is
  // synchronous up to the hub's answer, so no two requests share it at once.
  const steps = frontDoor({ allowsHost, controlOff: options.controlOff, cors: options.cors, docsDir: options.docsDir, docsBuilding: options.docsBuilding }, front);
  const door: Door = { request: undefined as unknown as FastifyRequest, path: "/", hub: front.main, url: undefined, basePath: undefined };

  function serve(request: FastifyRequest, reply: FastifyReply): void {
    door.request = request;
    door.path = pathOf(request);
    door.hub = front.main;
    door.url = undefined;
    door.basePath = undefined;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const stop = step.check(door);
      if (stop === undefined) continue;
      const { hub, path, url, basePath } = door;
      if (stop instanceof Refusal) send(request, reply, hub.refused(simRequest(request, url, basePath), stop, step.name), hub, path);
      else {
        // The server's own answer (a preflight, a docs file): written as it is, outside every hub's journal.
        reply.hijack();
        try {
          writeBody(request, reply.raw, stop, undefined);
        } catch (error) {
          failed(request, reply.raw, error, hub);
        }
      }
      return;
    }
    const { hub, path } = door;
    send(request, reply, hub.handle(simRequest(request, door.url, door.basePath)), hub, path);
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
    // Refused before the front door (a body too large): recorded by the hub the request was for.
    const raw = request.raw;
    const path = pathOf(request);
    const route = front.route(path, raw.url ?? "/", raw.headers.authorization, raw.headers[SANDBOX_HEADER], raw.headers.cookie);
    const hub = route === undefined ? front.main : route.hub;
    const routed = route !== undefined && !isRouteRefused(route) ? route : undefined;
    const req = simRequest(request, routed?.url, routed?.basePath);
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
    send(request, reply, answer, hub, routed?.url === undefined ? path : pathOf(routed.url));
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
