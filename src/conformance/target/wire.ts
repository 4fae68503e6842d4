// How a request goes on the wire and how much of its answer is read: node:http for every
// request (as fetch would send it; where a check asks, with its path as written and a
// header line given twice sent twice), fetch for a request whose answer may be an event
// stream (its body is left open as a web stream); each waits at most the timeout for the
// whole answer and reads at most `limit` bytes of the body (`TOO_LARGE` beyond). node:http
// costs about a third of fetch's CPU per request, and a whole run sends some 1,900. Nothing
// here judges, counts or masks: the target does that, once, for every request whichever
// way it went.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { inflate } from "./content-coding.ts";
import type { Answer } from "./exchange.ts";
import type { SentRequest } from "./record.ts";

/** Thrown by the readers when an answer passes the most bytes the suite reads. */
export const TOO_LARGE = Symbol("answer too large");

export interface WireOptions {
  /** Where it goes (a proxy in front of the server, or the address itself). */
  url: string;
  /**
   * Its path and query as written: no dot segment resolved, nothing escaped (the requests
   * that test how a server reads them). Else they go as fetch sends them (the URL parsed:
   * a space or a non-ASCII character percent-encoded in UTF-8, dot segments resolved).
   */
  asWritten?: boolean;
  timeoutMs: number;
  /** Most bytes of the body read. */
  limit: number;
  /** A success's body is not wanted (a result file, a stream that never ends): not read (node:http). */
  headersOnly?: boolean;
  /** Keep the body as bytes too (node:http). */
  binary?: boolean;
}

/** An answer, with the body of an event stream left open (and how to close it). */
export interface Received extends Answer {
  open?: { response: Response; controller: AbortController };
}

/** Why a request got no answer: the error, and whether it was the timeout that ended it. */
export class WireError extends Error {
  constructor(
    readonly cause: unknown,
    readonly timedOut: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * Sends through fetch a request whose answer may be an event stream (the event stream's
 * opening: a 200 `text/event-stream` answer's body is left open, as `open`); any other
 * answer is read whole, within the limit and the timeout.
 */
export async function sendFetch(sent: SentRequest, o: WireOptions): Promise<Received> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    const body = sent.body === undefined ? undefined : typeof sent.body === "string" ? sent.body : (sent.body as Uint8Array<ArrayBuffer>);
    const res = await fetch(o.url, { method: sent.method, headers: sent.headers, body, redirect: "manual", signal: controller.signal });
    if (res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      return { status: res.status, headers: res.headers, text: "", size: 0, open: { response: res, controller } };
    }
    const read = await readCapped(res, o.limit);
    return { status: res.status, headers: res.headers, text: new TextDecoder().decode(read), size: read.length };
  } catch (error) {
    if (error === TOO_LARGE) throw error;
    throw new WireError(error, controller.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
}

/** The body of an answer, read up to `limit` bytes; beyond (or a Content-Length beyond), the rest is not read and `TOO_LARGE` is thrown. */
async function readCapped(res: Response, limit: number): Promise<Uint8Array> {
  if (Number(res.headers.get("content-length") ?? 0) > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw TOO_LARGE;
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw TOO_LARGE;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The headers fetch adds to a request that does not set them: sent the same by node:http,
 * so a server sees the suite's requests alike whichever way they went.
 */
const FETCH_DEFAULTS: Record<string, string> = { accept: "*/*", "accept-language": "*", "sec-fetch-mode": "cors", "user-agent": "node", "accept-encoding": "gzip, deflate" };

/**
 * Sends through node:http: its path as fetch would send it or as written (`asWritten`),
 * some header lines repeated (an array value goes as one line each); the body undone from
 * its Content-Encoding, at most `limit` bytes of it.
 */
export function sendHttp(sent: SentRequest, o: WireOptions): Promise<Received> {
  const headers: Record<string, string | string[]> = {};
  const given = new Set(Object.keys(sent.headers).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(FETCH_DEFAULTS)) if (!given.has(name)) headers[name] = value;
  Object.assign(headers, sent.headers);
  for (const [name, value] of sent.lines ?? []) {
    const k = name.toLowerCase();
    const had = headers[k];
    headers[k] = had === undefined ? [value] : [...(Array.isArray(had) ? had : [had]), value];
  }
  const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
  if (body) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    let timedOut = false;
    // Each way it ends stops the timer: an answer, an error, an answer too large.
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error === TOO_LARGE ? error : new WireError(error, timedOut));
    };
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error(`timed out after ${o.timeoutMs} ms`));
    }, o.timeoutMs);
    const settle = (answer: () => Received) => {
      clearTimeout(timer);
      try {
        resolve(answer());
      } catch (error) {
        fail(error);
      }
    };
    let req: ReturnType<typeof httpRequest>;
    try {
      const parsed = new URL(o.url);
      const path = o.asWritten ? o.url.slice(parsed.origin.length) || "/" : parsed.pathname + parsed.search;
      req = (o.url.startsWith("https:") ? httpsRequest : httpRequest)(o.url, { method: sent.method, headers, path }, (res) => {
        const status = res.statusCode ?? 0;
        const answered = () => {
          const answer = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          return answer;
        };
        // A success whose body is not wanted (a result file, a stream that never ends).
        if (o.headersOnly && status >= 200 && status < 300) {
          res.destroy();
          settle(() => ({ status, headers: answered(), text: "", size: Number(res.headers["content-length"] ?? 0) }));
          return;
        }
        if (Number(res.headers["content-length"] ?? 0) > o.limit) {
          req.destroy();
          fail(TOO_LARGE);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size <= o.limit) chunks.push(c);
          else {
            req.destroy();
            fail(TOO_LARGE);
          }
        });
        res.on("end", () =>
          settle(() => {
            const headers = answered();
            let read: Buffer;
            try {
              read = inflate(Buffer.concat(chunks), (headers.get("content-encoding") ?? "").trim().toLowerCase(), o.limit);
            } catch (error) {
              throw (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" ? TOO_LARGE : error;
            }
            const textual = !o.binary || /json|text/.test(headers.get("content-type") ?? "");
            return { status, headers, text: textual ? new TextDecoder().decode(read) : "", ...(o.binary ? { bytes: new Uint8Array(read) } : {}), size: read.length };
          }),
        );
        res.on("error", fail);
      });
    } catch (error) {
      // A header value node:http will not send (fetch refuses the same ones).
      fail(error);
      return;
    }
    req.on("error", fail);
    req.end(body);
  });
}
