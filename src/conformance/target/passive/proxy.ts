// The passive proxy: a client's traffic (a browser app, an end-to-end suite, a load test)
// goes through it to the server, unchanged and unbuffered, and every exchange (every frame
// of an event stream) is handed to a TrafficSink once its answer is in. It sends no request
// of its own. What it reads of an answer for the judge is bounded (`maxAnswerBytes`; of a
// stream, of one frame), and so is what it keeps of a request body (KEPT_BODY): the client
// gets everything, whatever its size. A client that goes away is survived (the upstream
// request is ended with it, the exchange is not judged: it has no answer). Host: see
// links.ts. Only Host names of this machine are served (DNS rebinding: a page that points
// its own name at 127.0.0.1 gets 403), as the simulator's front door does.
import { request as httpRequest, createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { hostAllowList } from "../../../simulator/http/hosts.ts";
import { decompressor, inflate } from "../content-coding.ts";
import { exchangeOf, type Exchange } from "../exchange.ts";
import { KEPT_BODY, type SentRequest } from "../record.ts";
import { FrameReader } from "./frames.ts";
import { apiPath, forwarded, LinkRewriter, upstreamOf, upstreamPath, upstreamRequestHeaders, type Upstream } from "./links.ts";
import { answerHeaders, CredentialNames, headerPairs, isApiRequest, keptRequestBody, requestHeaders, type TrafficSink } from "./traffic.ts";

export interface PassiveProxyOptions {
  /** The server the traffic goes to (its base address; a path under which its API sits is kept). */
  upstream: string;
  /** The port to listen on (0: a free one). */
  port: number;
  /** The address to listen on (default 127.0.0.1: this machine only). */
  host?: string;
  /** Most bytes of one answer read for the judge (of an event stream, of one frame). */
  maxAnswerBytes: number;
  /** Send the upstream's own Host and rewrite its absolute links to the proxy's (links.ts). */
  rewriteLinks?: boolean;
  /** Host names served besides this machine's (loopback names, IP addresses): `name`, `.domain`, or `*`. */
  allowedHosts?: readonly string[];
  sink: TrafficSink;
}

/** What the proxy saw besides the exchanges it handed on, for the report. */
export interface ProxyCounts {
  /** Exchanges handed to the sink (API and bare). */
  exchanges: number;
  /** Event streams opened through it. */
  streams: number;
  /** Requests whose client went away before the answer was complete (not judged). */
  aborted: number;
  /** Requests the upstream could not be reached for (answered 503 by the proxy, not judged). */
  upstreamErrors: number;
  /** The last reason the upstream could not be reached. */
  lastUpstreamError?: string;
  /** Requests refused for their Host (a name not of this machine). */
  refusedHosts: number;
}

export interface RunningPassiveProxy {
  /** The proxy's address (point the client here). */
  url: string;
  counts: ProxyCounts;
  /** Stops listening and ends every connection (open streams included). */
  close(): Promise<void>;
}

/** Media types whose bodies are read for the judge; any other body (a file) is passed on and only counted. */
const JUDGED_BODY = /json|^text\/|xml|x-www-form-urlencoded/;

export async function startPassiveProxy(options: PassiveProxyOptions): Promise<RunningPassiveProxy> {
  const up = upstreamOf(options.upstream);
  const allows = hostAllowList(options.allowedHosts ?? []);
  const names = new CredentialNames();
  const counts: ProxyCounts = { exchanges: 0, streams: 0, aborted: 0, upstreamErrors: 0, refusedHosts: 0 };
  const server = createServer((req, res) => {
    try {
      forward(req, res, { up, options, names, counts, allows });
    } catch (error) {
      // Nothing a client sends may stop the proxy.
      fail(res, 500, "internal_error", `the conformance proxy could not forward the request: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Context {
  up: Upstream;
  options: PassiveProxyOptions;
  names: CredentialNames;
  counts: ProxyCounts;
  allows: (host: string) => boolean;
}

/** A refusal or an error of the proxy's own, in the API's envelope (never judged). */
function fail(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message, user_message: message, request_id: "conformance-proxy" } });
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "cache-control": "private, no-store" });
  res.end(body);
}

function forward(req: IncomingMessage, res: ServerResponse, c: Context): void {
  const sentAt = Date.now();
  const host = req.headers.host;
  if (host !== undefined && !c.allows(host)) {
    c.counts.refusedHosts++;
    fail(res, 403, "origin_mismatch", `the conformance proxy serves this machine's names only (localhost, IP addresses, --allowed-hosts); Host ${JSON.stringify(host)} is refused (DNS rebinding)`);
    return;
  }
  const method = req.method ?? "GET";
  const clientPath = req.url ?? "/";
  const path = upstreamPath(c.up, clientPath);
  const lines = upstreamRequestHeaders(headerPairs(req.rawHeaders), c.up, Boolean(c.options.rewriteLinks));
  const { headers } = requestHeaders(lines);
  const toClient = c.options.rewriteLinks && host ? new LinkRewriter(`${c.up.origin}${c.up.prefix}`, `http://${host}`) : undefined;

  // The request body goes on as it comes; its first bytes are kept for the record.
  const head: Buffer[] = [];
  let bodyBytes = 0;
  const send = c.up.url.protocol === "https:" ? httpsRequest : httpRequest;
  const upReq = send({
    protocol: c.up.url.protocol,
    hostname: c.up.url.hostname.replace(/^\[|\]$/g, ""),
    port: c.up.url.port || undefined,
    method,
    path,
    // As raw lines: a header the client sent twice goes on twice.
    headers: lines.flat() as unknown as OutgoingHttpHeaders,
    setHost: headers.host === undefined,
    servername: c.up.url.hostname,
  });
  let answered = false;
  let clientGone = false;
  const gone = () => {
    if (answered || clientGone) return;
    clientGone = true;
    c.counts.aborted++;
    upReq.destroy();
  };
  req.on("data", (chunk: Buffer) => {
    if (bodyBytes < KEPT_BODY) head.push(chunk);
    bodyBytes += chunk.length;
  });
  req.on("error", gone);
  res.on("close", () => {
    if (!res.writableFinished) gone();
  });
  req.pipe(upReq);

  upReq.on("error", (error) => {
    if (clientGone) return;
    const why = (error as NodeJS.ErrnoException).code ?? error.message;
    c.counts.upstreamErrors++;
    c.counts.lastUpstreamError = `${method} ${path}: ${why}`;
    fail(res, 503, "service_unavailable", `the conformance proxy could not reach ${c.up.origin}: ${why}`);
  });

  upReq.on("response", (upRes) => {
    const answeredAt = Date.now();
    const status = upRes.statusCode ?? 502;
    const answerPairs = headerPairs(upRes.rawHeaders);
    const type = (answerPairs.find(([n]) => n === "content-type")?.[1] ?? "").toLowerCase();
    const encoding = (answerPairs.find(([n]) => n === "content-encoding")?.[1] ?? "").trim().toLowerCase();
    const stream = type.startsWith("text/event-stream");
    const judgedBody = JUDGED_BODY.test(type) && !stream;
    const outPairs = forwarded(answerPairs).map(([n, v]): [string, string] => [n, toClient ? toClient.header(n, v) : v]);
    const seen = { bare: !isApiRequest(method, apiPath(c.up, clientPath), headers), sentAt, answeredAt, elapsedSeconds: 0 };
    const exchange = (text: string, size: number): Exchange => {
      const sent: SentRequest = { method, url: `${c.up.origin}${path}`, ...requestHeaders(lines), ...keptRequestBody(Buffer.concat(head), bodyBytes, headers["content-type"]) };
      return exchangeOf(sent, { status, headers: answerHeaders(answerPairs), text, size }, { path: apiPath(c.up, clientPath), label: c.names.of(headers), sentRequestId: headers["x-request-id"], startedAt: sentAt, ms: answeredAt - sentAt });
    };
    upRes.on("error", () => res.destroy());

    if (stream) {
      answered = true;
      c.counts.streams++;
      c.counts.exchanges++;
      res.writeHead(status, outPairs.flat());
      res.flushHeaders();
      const opened = exchange("", 0);
      c.options.sink.exchange(opened, seen);
      const reader = new FrameReader((frame) => c.options.sink.frame(frame, opened), (bytes) => c.options.sink.overflow(opened, bytes), c.options.maxAnswerBytes);
      const decoder = new StringDecoder("utf8");
      const unzip = decompressor(encoding);
      unzip?.on("data", (chunk: Buffer) => reader.feed(decoder.write(chunk), chunk.length));
      unzip?.on("error", () => undefined);
      upRes.on("data", (chunk: Buffer) => {
        res.write(chunk);
        if (unzip) unzip.write(chunk);
        else reader.feed(decoder.write(chunk), chunk.length);
      });
      upRes.on("end", () => res.end());
      res.on("close", () => upRes.destroy());
      return;
    }

    // A JSON or text body whose links are rewritten is held until it is whole (its length
    // changes), up to the most bytes read; any other body goes on as it comes.
    let holding = Boolean(toClient) && judgedBody && !encoding;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let size = 0;
    let tooLarge = false;
    if (!holding) res.writeHead(status, outPairs.flat());
    upRes.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (tooLarge || !judgedBody) return void res.write(chunk);
      if (keptBytes + chunk.length > c.options.maxAnswerBytes) {
        // Read no further for the judge; the client still gets it all (unrewritten, if it was held).
        tooLarge = true;
        if (holding) {
          holding = false;
          res.writeHead(status, outPairs.flat());
          for (const k of kept) res.write(k);
        }
        kept.length = 0;
        return void res.write(chunk);
      }
      kept.push(chunk);
      keptBytes += chunk.length;
      if (!holding) res.write(chunk);
    });
    upRes.on("end", () => {
      answered = true;
      const raw = Buffer.concat(kept);
      if (holding) {
        const body = Buffer.from(toClient!.text(raw.toString("utf8")), "utf8");
        res.writeHead(status, [...outPairs.filter(([n]) => n !== "content-length"), ["content-length", String(body.length)]].flat());
        res.end(body);
      } else res.end();
      c.counts.exchanges++;
      const decoded = judgedBody && !tooLarge ? inflated(raw, encoding, c.options.maxAnswerBytes) : Buffer.alloc(0);
      const unknown = tooLarge || decoded === undefined;
      c.options.sink.exchange(exchange(unknown ? "" : new TextDecoder().decode(decoded), size), { ...seen, ...(unknown ? { bodyUnknown: "too large" as const } : {}) });
    });
  });
}

/** A whole body decompressed for its Content-Encoding, at most `limit` bytes (undefined beyond, or when it cannot be read). */
function inflated(raw: Buffer, encoding: string, limit: number): Buffer | undefined {
  try {
    return inflate(raw, encoding, limit);
  } catch {
    return undefined;
  }
}
