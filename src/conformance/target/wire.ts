// How a request goes on the wire and how much of its answer is read: fetch for every
// request it can send, node:http for those fetch would change (a header line given twice,
// a path with dot segments); each waits at most the timeout and reads at most `limit`
// bytes of the body (`TOO_LARGE` beyond). Nothing here judges, counts or masks: the target
// does that, once, for every request whichever way it went.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Answer } from "./exchange.ts";
import type { SentRequest } from "./record.ts";

/** Thrown by the readers when an answer passes the most bytes the suite reads. */
export const TOO_LARGE = Symbol("answer too large");

export interface WireOptions {
  /** Where fetch sends it (a proxy in front of the server, or the address itself). */
  url: string;
  timeoutMs: number;
  /** Most bytes of the body read. */
  limit: number;
  /** A success's body is not wanted (a result file, a stream that never ends): not read. */
  headersOnly?: boolean;
  /** Keep the body as bytes too. */
  binary?: boolean;
  /** An event stream: a 200 `text/event-stream` answer's body is left open, as `open`. */
  stream?: boolean;
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

/** Sends through fetch (the timeout covers the whole read, but an event stream's, whose body stays open). */
export async function sendFetch(sent: SentRequest, o: WireOptions): Promise<Received> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    const body = sent.body === undefined ? undefined : typeof sent.body === "string" ? sent.body : (sent.body as Uint8Array<ArrayBuffer>);
    const res = await fetch(o.url, { method: sent.method, headers: sent.headers, body, redirect: "manual", signal: controller.signal });
    const size = () => Number(res.headers.get("content-length") ?? 0);
    if (o.stream && res.status === 200 && (res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      return { status: res.status, headers: res.headers, text: "", size: 0, open: { response: res, controller } };
    }
    if (o.headersOnly && res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { status: res.status, headers: res.headers, text: "", size: size() };
    }
    const read = await readCapped(res, o.limit);
    const textual = !o.binary || /json|text/.test(res.headers.get("content-type") ?? "");
    return { status: res.status, headers: res.headers, text: textual ? new TextDecoder().decode(read) : "", ...(o.binary ? { bytes: read } : {}), size: read.length };
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
 * Sends through node:http: its path as given (no dot segment resolved) and some header
 * lines repeated (an array value goes as one line each); at most `limit` bytes of the
 * answer are read.
 */
export function sendRaw(sent: SentRequest, o: WireOptions): Promise<Received> {
  const headers: Record<string, string | string[]> = { ...sent.headers };
  for (const [name, value] of sent.lines ?? []) {
    const k = name.toLowerCase();
    const had = headers[k];
    headers[k] = had === undefined ? [value] : [...(Array.isArray(had) ? had : [had]), value];
  }
  const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
  if (body) headers["content-length"] = String(body.length);
  const send = sent.url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const path = sent.url.slice(new URL(sent.url).origin.length) || "/";
    let timedOut = false;
    const req = send(sent.url, { method: sent.method, headers, path }, (res) => {
      const answered = (bytes: Buffer, size: number) => {
        const answer = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode ?? 0, headers: answer, text: bytes.toString("utf8"), size });
      };
      // A success whose body is not wanted (it may be an event stream that never ends).
      if (o.headersOnly && (res.statusCode ?? 0) < 300) {
        res.destroy();
        answered(Buffer.alloc(0), Number(res.headers["content-length"] ?? 0));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size <= o.limit) chunks.push(c);
        else {
          req.destroy();
          reject(TOO_LARGE);
        }
      });
      res.on("end", () => answered(Buffer.concat(chunks), size));
      res.on("error", (error) => reject(new WireError(error, timedOut)));
    });
    req.setTimeout(o.timeoutMs, () => {
      timedOut = true;
      req.destroy(new Error(`timed out after ${o.timeoutMs} ms`));
    });
    req.on("error", (error) => reject(new WireError(error, timedOut)));
    req.end(body);
  });
}
