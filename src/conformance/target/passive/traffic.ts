// Traffic the suite did not send (a client's, through the passive proxy, or a recorded HAR
// file), as the sinks take it: each exchange made with `exchangeOf`, told whether it is an
// API exchange to judge or a bare one (recorded for the trace only), with the times that
// order it; the frames of its event stream. The credential an exchange went with is named
// by a keyed hash of its value (`bearer#1a2b3c4d`): stable within a run, different for
// each credential, never the credential itself, and nothing to remember per credential.
import { createHmac, randomBytes } from "node:crypto";
import type { Exchange } from "../exchange.ts";
import { KEPT_BODY, type SentRequest } from "../record.ts";
import type { Frame } from "../stream.ts";

/** How an exchange of outside traffic came, for the judge. */
export interface Seen {
  /** Not an API exchange (a preflight, a storage PUT, a page, the simulator's control): for the trace, not judged. */
  bare: boolean;
  /** When the request left the client and when its answer (its head, for a stream) came back, ms since the epoch. */
  sentAt: number;
  answeredAt: number;
  /** Seconds since the first exchange of the traffic by its own clock (a recorded file's), for checks over time. */
  elapsedSeconds: number;
  /**
   * Why the answer's body is not judged, when it is not: larger than the most bytes read
   * (`--max-answer-bytes`), or a recorded file that does not hold it. Its status and
   * headers are what is known of it.
   */
  bodyUnknown?: "too large" | "not recorded";
}

/** Where outside traffic goes: the passive judge (judge/passive.ts). */
export interface TrafficSink {
  exchange(ex: Exchange, seen: Seen): void;
  /** A frame of the event stream `opened` opened. */
  frame(frame: Frame, opened: Exchange): void;
  /** The stream `opened` opened sent more than `bytes` without ending a frame: read no further. */
  overflow(opened: Exchange, bytes: number): void;
}

/** The first parts of a path that belong to the API: everything else is bare. */
const API_PATHS = /^\/(?:v1(?:[/?]|$)|oauth\/|\.well-known\/)/;

/** Whether a request is an API request to judge (not a CORS preflight, not a storage PUT, a page, or the simulator's control). */
export function isApiRequest(method: string, path: string, headers: Record<string, string>): boolean {
  if (method === "OPTIONS" && headers["access-control-request-method"] !== undefined) return false;
  return API_PATHS.test(path);
}

/** Names credentials by a keyed hash of their value: the key is this run's own, so names cannot be traced back or across runs. */
export class CredentialNames {
  readonly #key = randomBytes(32);

  /** `bearer#…` for an Authorization header, `cookie#…` for a Cookie without one, `none`. */
  of(headers: Record<string, string>): string {
    const authorization = headers.authorization;
    if (authorization) return `${/^(\w+)\s/.exec(authorization)?.[1]?.toLowerCase() ?? "credential"}#${this.#hash(authorization)}`;
    if (headers.cookie) return `cookie#${this.#hash(headers.cookie)}`;
    return "none";
  }

  #hash(value: string): string {
    return createHmac("sha256", this.#key).update(value).digest("hex").slice(0, 8);
  }
}

/**
 * What a record keeps of a request body of `size` bytes whose first bytes are `head`: at
 * most KEPT_BODY of them (text, or bytes for a file), with the whole size when it was longer.
 */
export function keptRequestBody(head: Buffer, size: number, contentType: string | undefined): Pick<SentRequest, "body" | "bodySize"> {
  if (size === 0) return {};
  const bytes = head.length > KEPT_BODY ? Buffer.from(head.subarray(0, KEPT_BODY)) : head;
  const textual = contentType === undefined || /json|text|x-www-form-urlencoded|xml/.test(contentType);
  return { body: textual ? bytes.toString("utf8") : new Uint8Array(bytes), ...(size > bytes.length ? { bodySize: size } : {}) };
}

/** Header lines as a record keeps them: names in lower case, a header given twice joined as HTTP joins it (Set-Cookie kept apart). */
export function headerPairs(lines: readonly string[] | readonly [string, string][]): [string, string][] {
  const pairs: [string, string][] = [];
  if (lines.length > 0 && typeof lines[0] === "string") {
    const flat = lines as readonly string[];
    for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!.toLowerCase(), flat[i + 1]!]);
  } else for (const [n, v] of lines as readonly [string, string][]) pairs.push([n.toLowerCase(), v]);
  return pairs;
}

/** Request headers as a SentRequest holds them: the first line of each name in `headers`, a name's further lines in `lines`. */
export function requestHeaders(pairs: readonly [string, string][]): Pick<SentRequest, "headers" | "lines"> {
  const headers: Record<string, string> = {};
  const lines: [string, string][] = [];
  for (const [n, v] of pairs) {
    if (n in headers) lines.push([n, v]);
    else headers[n] = v;
  }
  return { headers, ...(lines.length > 0 ? { lines } : {}) };
}

/** Answer headers as an Exchange holds them (Set-Cookie lines kept apart). */
export function answerHeaders(pairs: readonly [string, string][]): Headers {
  const headers = new Headers();
  for (const [n, v] of pairs) {
    try {
      headers.append(n, v);
    } catch {
      // A header value fetch's Headers refuses (a byte it does not take): not judged.
    }
  }
  return headers;
}
