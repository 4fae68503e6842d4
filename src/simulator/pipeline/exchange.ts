// What the core receives and answers, independent of any HTTP framework: the Fastify
// adapter maps Node requests onto these, and in-browser request handlers can too.

export interface SimRequest {
  /** Upper-case method. */
  method: string;
  /** Path and query as received (`/v1/generations?limit=5`). */
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body; undefined when the request had none. */
  body?: Uint8Array;
  /** `scheme://host[:port]` as the caller reached this server; links in records start with it. */
  baseUrl: string;
  /** The caller's network address, when the adapter knows it (per-IP limits of the OAuth registration). */
  remoteAddress?: string;
}

import type { StreamSink } from "../domain/events.ts";

export type { StreamSink } from "../domain/events.ts";

/** The adapter's end of a stream: besides writing and ending, it can cut the connection. */
export interface ConnectionSink extends StreamSink {
  /** Ends the connection without a proper end (a `stream_cut` fault): the client sees a lost connection. */
  abort(): void;
}

/** How an adapter delivers an answer, when a fault says so (pipeline/faults.ts). */
export interface Delivery {
  /** Real milliseconds to wait before the answer's first byte (a `latency` fault). */
  delayMs?: number;
}

export interface BodyAnswer extends Delivery {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * A `truncate` fault: the headers promise the whole body (its Content-Length), only this
   * many bytes of it are sent, then the connection closes. Set on a byte body only.
   */
  truncateAt?: number;
}

export interface StreamAnswer extends Delivery {
  status: number;
  headers: Record<string, string>;
  /** Starts the stream on a sink; answers a function that stops it (client gone). */
  stream: (sink: ConnectionSink) => () => void;
}

/** No answer at all: the adapter closes the connection (a `drop` fault). */
export interface DroppedAnswer {
  dropped: true;
}

/**
 * An answer that needs asynchronous work first (the OAuth token and revoke routes verify
 * client assertions and PKCE with WebCrypto). The promise never rejects: failures settle
 * as envelope or OAuth error answers. Everything else stays synchronous.
 */
export interface DeferredAnswer {
  deferred: Promise<BodyAnswer | DroppedAnswer>;
}

export type SimResponse = BodyAnswer | StreamAnswer | DeferredAnswer | DroppedAnswer;

export function isStream(answer: SimResponse): answer is StreamAnswer {
  return "stream" in answer;
}

export function isDeferred(answer: SimResponse): answer is DeferredAnswer {
  return "deferred" in answer;
}

export function isDropped(answer: SimResponse): answer is DroppedAnswer {
  return "dropped" in answer;
}

export function header(req: SimRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : v;
}
