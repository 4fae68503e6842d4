// What the core receives and answers, independent of any HTTP framework: the node:http
// adapter (http/server.ts) maps Node requests onto these, and in-browser request handlers can too.

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
  /**
   * The part of the caller's path before `url` when the request reached a sandbox by its
   * base path (`/sandboxes/sbx_…`; the front door strips it from `url`): links, the site's
   * forms and redirects, the OAuth issuer and `Location` keep it. Undefined otherwise.
   */
  basePath?: string;
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
  kind: "body";
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
  kind: "stream";
  status: number;
  headers: Record<string, string>;
  /** Starts the stream on a sink; answers a function that stops it (client gone). */
  stream: (sink: ConnectionSink) => () => void;
}

/** No answer at all: the adapter closes the connection (a `drop` fault). */
export interface DroppedAnswer {
  kind: "dropped";
}

/**
 * An answer that needs asynchronous work first (the OAuth token and revoke routes verify
 * client assertions and PKCE with WebCrypto). The promise never rejects: failures settle
 * as envelope or OAuth error answers. Everything else stays synchronous.
 */
export interface DeferredAnswer {
  kind: "deferred";
  deferred: Promise<BodyAnswer | DroppedAnswer>;
}

/**
 * Every answer of the hub, told apart by `kind`: an adapter switches on it, and the
 * compiler holds the switch to every kind (`unreachable` in its default).
 */
export type SimResponse = BodyAnswer | StreamAnswer | DeferredAnswer | DroppedAnswer;

/** The default of a switch over every kind: a kind added later fails to compile there. */
export function unreachable(answer: never): never {
  throw new TypeError(`an answer of no known kind: ${JSON.stringify(answer)}`);
}
