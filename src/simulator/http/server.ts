// The HTTP adapter, on Node's own `node:http`: maps each Node request onto the hub's
// SimRequest and writes the hub's answer back. Every request takes one path: the front
// door's steps (front-door.ts), the body read up to its route's limit, the hub, the
// answer written to Node's response in one write with its head. Whatever Node cannot
// parse, a body too large and a failure while answering all end in the API's envelope
// (or a closed connection once a head has left); no framework body ever leaks.
//
// No framework in between: the simulator routes, parses and renders itself, so a
// framework's router, hooks and reply object only cost time on every request (bench:
// Fastify set up as this adapter once was, answering constants with no work behind them,
// reached 81% to 86% of a bare node:http server sending the same answers on a list read;
// docs/contributing.md, "Benchmarks of the simulator").
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { envelope, refuse, Refusal } from "../domain/refusal.ts";
import { maskText } from "../domain/secrets.ts";
import { unreachable, type BodyAnswer, type SimRequest, type SimResponse, type StreamAnswer } from "../pipeline/exchange.ts";
import type { AdapterCheck } from "../pipeline/journal.ts";
import type { Hub } from "../hub.ts";
import { Sandboxes } from "../sandboxes.ts";
import { newRequestId } from "../state/util.ts";
import { bodyLimitOf, tooLargeMessage } from "./body-limits.ts";
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
  /** One line per request on stdout: method, URL (masked as the journal masks it), status, time taken, request id. */
  logger: boolean;
}

/** The simulator's HTTP server: Node's, with how to start and stop it. */
export interface HubServer {
  readonly server: Server;
  listen(options: { host: string; port: number }): Promise<void>;
  /** Stops listening and closes every connection (open event streams too). */
  close(): Promise<void>;
  /** One exchange for a test, over a loopback connection (the server listens on a free loopback port for it when it is not listening yet). */
  inject(request: { method?: string; url: string; headers?: Record<string, string>; payload?: string | Uint8Array }): Promise<Injected>;
}

export interface Injected {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: string;
  json(): any;
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

/** The path of a URL's path and query, without its query. */
function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

/** Whether a request carries a body to read: never a GET's or a HEAD's; else any with a length, chunks or a media type. */
function hasBody(req: IncomingMessage): boolean {
  const method = req.method;
  if (method === "GET" || method === "HEAD") return false;
  const headers = req.headers;
  const length = headers["content-length"];
  return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0") || headers["content-type"] !== undefined;
}

/**
 * The server in front of `source`: a simulator's sandboxes and default hub (startSimulator),
 * or one hub made alone (no sandbox is then reached: a sandbox hint is refused).
 */
export function createServer(source: Hub | Sandboxes, options: ServerOptions): HubServer {
  const front = source instanceof Sandboxes ? source : Sandboxes.alone(source);
  let fallbackBase = "http://127.0.0.1";
  const allowsHost = hostAllowList(options.allowedHosts);

  /** The request as the hub sees it: `url` and `basePath` when the front door routed it by a sandbox's base path. */
  function simRequest(raw: IncomingMessage, url: string | undefined, basePath: string | undefined, body: Uint8Array | undefined): SimRequest {
    const authorizations = repeatedAuthorization(raw.rawHeaders);
    return {
      method: raw.method ?? "GET",
      url: url ?? raw.url ?? "/",
      headers: authorizations ? { ...raw.headers, authorization: authorizations } : raw.headers,
      body,
      baseUrl: baseUrlOf(raw, fallbackBase),
      remoteAddress: raw.socket.remoteAddress,
      basePath,
    };
  }

  /** The answer's headers, with the CORS pair where --cors opens the route to the request's origin. */
  function headersOf(req: IncomingMessage, answer: BodyAnswer | StreamAnswer, path: string): Record<string, string> {
    if (options.cors === false) return answer.headers;
    const origin = req.headers.origin;
    if (!corsAllows(options.cors, origin, path)) return answer.headers;
    return { ...answer.headers, "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED };
  }

  /**
   * Writes the hub's answer. Every failure here, now or in a later callback, still ends the
   * exchange: a 500 in the envelope while nothing is written yet, else the connection
   * closes. `hub` is the one that answered, `path` the path it answered (what CORS is
   * decided on).
   */
  function send(req: IncomingMessage, res: ServerResponse, answer: SimResponse, hub: Hub, path: string, started: number): void {
    try {
      deliver(req, res, answer, hub, path, started);
    } catch (error) {
      failed(req, res, error, hub);
    }
  }

  function deliver(req: IncomingMessage, res: ServerResponse, answer: SimResponse, hub: Hub, path: string, started: number): void {
    switch (answer.kind) {
      case "deferred":
        answer.deferred.then(
          (settled) => send(req, res, settled, hub, path, started),
          () => send(req, res, hub.refuse(simRequest(req, undefined, undefined, undefined), "internal_error"), hub, path, started),
        );
        return;
      // Faults (pipeline/faults.ts): no answer at all, or the answer later.
      case "dropped":
        req.socket.destroy();
        return;
      case "stream":
      case "body":
        if (answer.delayMs !== undefined) {
          const later = { ...answer, delayMs: undefined };
          setTimeout(() => send(req, res, later, hub, path, started), answer.delayMs);
          return;
        }
        if (answer.kind === "stream") writeStream(req, res, answer, path);
        else writeBody(res, answer, headersOf(req, answer, path));
        if (options.logger) log(req, hub, answer.status, started);
        return;
      default:
        unreachable(answer);
    }
  }

  /** A failure while answering: the envelope's 500 while the head is unwritten, else the connection closes. */
  function failed(req: IncomingMessage, res: ServerResponse, error: unknown, hub: Hub): void {
    console.error(`simulator: ${req.method} ${maskText(req.url ?? "/", hub.state)} could not be answered`, error);
    if (!res.headersSent && !res.destroyed) {
      try {
        const answer = hub.refuse(simRequest(req, undefined, undefined, undefined), "internal_error");
        res.writeHead(500, { ...answer.headers, "content-length": String(Buffer.byteLength(answer.body as string)), connection: "close" });
        res.end(answer.body);
        return;
      } catch {
        // Even the envelope could not be written: close.
      }
    }
    res.destroy();
  }

  function writeStream(req: IncomingMessage, res: ServerResponse, answer: StreamAnswer, path: string): void {
    res.writeHead(answer.status, headersOf(req, answer, path));
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
    if (res.destroyed || req.socket.destroyed) stop();
    else res.on("close", () => stop?.());
  }

  /** A body answer with `headers` (Content-Length added to them); the head and a text body leave in one write. */
  function writeBody(res: ServerResponse, answer: BodyAnswer, headers: Record<string, string>): void {
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
  }

  function log(req: IncomingMessage, hub: Hub, status: number, started: number): void {
    const ms = (performance.now() - started).toFixed(1);
    console.log(`${req.method} ${maskText(req.url ?? "/", hub.state)} ${status} ${ms} ms`);
  }

  /** Refused before the hub by the adapter itself (`by`: a body too large, a body that could not be read). */
  function refuseHere(req: IncomingMessage, res: ServerResponse, door: Routed, code: string, message: string, by: AdapterCheck, started: number): void {
    const answer = door.hub.refuse(simRequest(req, door.url, door.basePath, undefined), code, message, undefined, by);
    send(req, res, answer, door.hub, door.path, started);
  }

  // The front door's steps (front-door.ts), and the one Door they read, reused: the steps
  // are synchronous, so no two requests share it at once.
  const steps = frontDoor({ allowsHost, controlOff: options.controlOff, cors: options.cors, docsDir: options.docsDir, docsBuilding: options.docsBuilding }, front);
  const door: Door = { request: undefined as unknown as IncomingMessage, path: "/", hub: front.main, url: undefined, basePath: undefined };

  function serve(req: IncomingMessage, res: ServerResponse): void {
    const started = options.logger ? performance.now() : 0;
    door.request = req;
    door.path = pathOf(req.url ?? "/");
    door.hub = front.main;
    door.url = undefined;
    door.basePath = undefined;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      const stop = step.check(door);
      if (stop === undefined) continue;
      const { hub, path, url, basePath } = door;
      if (stop instanceof Refusal) send(req, res, hub.refused(simRequest(req, url, basePath, undefined), stop, step.name), hub, path, started);
      else {
        // The server's own answer (a preflight, a docs file): written as it is, outside every hub's journal.
        try {
          writeBody(res, stop, stop.headers);
          if (options.logger) log(req, hub, stop.status, started);
        } catch (error) {
          failed(req, res, error, hub);
        }
      }
      return;
    }
    const routed: Routed = { hub: door.hub, path: door.path, url: door.url, basePath: door.basePath };
    if (!hasBody(req)) {
      send(req, res, routed.hub.handle(simRequest(req, routed.url, routed.basePath, undefined)), routed.hub, routed.path, started);
      return;
    }
    readBody(req, res, routed, started);
  }

  /** Reads the body up to the route's limit (an upload's PUT: the ticket's ceiling), then hands the request to the hub. */
  function readBody(req: IncomingMessage, res: ServerResponse, routed: Routed, started: number): void {
    const limit = bodyLimitOf(req.method ?? "GET", routed.path, options.bodyLimit);
    const length = req.headers["content-length"];
    if (length !== undefined && Number(length) > limit) {
      refuseHere(req, res, routed, "request_too_large", tooLargeMessage(limit), "body limit", started);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    // Unnamed listeners, and a flag instead of removing them. Through tsx (npm start) a
    // named closure made per request also gets its name set by esbuild's keepNames helper
    // (a defineProperty each); those four and the three removals cost 2 to 3.5 µs of a
    // submit's 30 (docs/contributing.md, "Where the time goes per request"). A late error
    // still finds its listener.
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      if (received > limit) {
        done = true;
        // The rest is still read (this listener keeps the body flowing) and dropped, so the
        // answer reaches a client still sending.
        refuseHere(req, res, routed, "request_too_large", tooLargeMessage(limit), "body limit", started);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      let answer: SimResponse;
      try {
        answer = routed.hub.handle(simRequest(req, routed.url, routed.basePath, new Uint8Array(body.buffer, body.byteOffset, body.byteLength)));
      } catch (error) {
        failed(req, res, error, routed.hub);
        return;
      }
      send(req, res, answer, routed.hub, routed.path, started);
    });
    // The client went away mid-body: nothing reaches the hub; while the socket still stands, the envelope says so.
    req.on("error", () => {
      if (done) return;
      done = true;
      if (!res.destroyed && !req.socket.destroyed) refuseHere(req, res, routed, "invalid_request", "The request body could not be read.", "body reading", started);
    });
  }

  const requestTimeout = options.requestTimeoutSeconds * 1000;
  const server = createHttpServer(
    {
      maxHeaderSize: options.maxHeaderBytes,
      requestTimeout,
      // Node refuses a header timeout longer than the whole request's.
      headersTimeout: requestTimeout > 0 ? Math.min(60_000, requestTimeout) : 60_000,
      // A keep-alive connection idles this long before the server closes it (Node's own 5 s
      // races clients that reuse a connection a few seconds later).
      keepAliveTimeout: 72_000,
      // A request without Host reaches the front door (which refuses it in the envelope) instead of Node's bare 400.
      requireHostHeader: false,
    },
    (req, res) => {
      try {
        serve(req, res);
      } catch (error) {
        failed(req, res, error, front.main);
      }
    },
  );
  // An Expect other than 100-continue: Node would answer a bare 417 itself. The expectation
  // is ignored instead (RFC 9110 allows either) and the request is served as usual.
  server.on("checkExpectation", (req, res) => server.emit("request", req, res));
  // Requests Node cannot parse (header block too large, bad request line, timeout).
  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => {
    if (!socket.writable || error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW" || error.code === "HPE_URI_OVERFLOW";
    const code = tooLarge ? "request_too_large" : "invalid_request";
    const requestId = newRequestId();
    const body = JSON.stringify(envelope(refuse(code, { message: tooLarge ? "The request line or headers are larger than the API accepts." : "The request could not be parsed." }), requestId, "en"));
    socket.end(rawAnswer(tooLarge ? 413 : 400, tooLarge ? "Payload Too Large" : "Bad Request", requestId, body));
  });

  let injecting: Promise<void> | undefined;
  return {
    server,
    listen({ host, port }) {
      return new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.removeListener("error", reject);
          const address = server.address() as AddressInfo;
          fallbackBase = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
          resolve();
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    async inject({ method = "GET", url, headers = {}, payload }) {
      if (!server.listening) await (injecting ??= this.listen({ host: "127.0.0.1", port: 0 }));
      const { port } = server.address() as AddressInfo;
      return new Promise<Injected>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method, path: url, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = Buffer.concat(chunks).toString("utf8");
            resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
          });
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(payload);
      });
    },
  };
}

/** Where the front door sent a request: the hub that answers, the path it answers, and a sandbox's base path stripped. */
interface Routed {
  hub: Hub;
  path: string;
  url: string | undefined;
  basePath: string | undefined;
}
