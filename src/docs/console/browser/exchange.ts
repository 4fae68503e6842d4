// Sending the panel's request and reading its answer. The request carries only the
// credential the reader picked: `credentials: "omit"` keeps the site's session cookie off
// it unless the reader picked the session. Every request has an X-Request-Id of its own,
// by which the panel then finds it in the simulator's journal.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { sentParameters, urlOf, type RequestSpec } from "./code.ts";
import { uuid } from "./dom.ts";

export interface Outgoing extends RequestSpec {
  /** The API key or token sent as `Authorization: Bearer`, when the credential is a key. */
  secret?: string;
  /** The file a binary body sends. */
  file?: File | null;
}

export interface Sent {
  method: string;
  url: string;
  requestId: string;
  /** The request's headers as shown: the credential masked. */
  headers: [string, string][];
}

export type AnswerBody =
  | { kind: "text"; text: string; json: boolean }
  | { kind: "file"; type: string; size: number; imageUrl: string | null }
  | { kind: "stream" };

export interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: AnswerBody;
  ms: number;
}

export interface StreamWatcher {
  frame(message: EventSourceMessage): void;
  comment(text: string): void;
  end(why: string): void;
}

/** The answer headers the panel shows at once, in this order (the rest on demand). */
export const KEY_HEADERS = ["x-request-id", "ratelimit", "ratelimit-policy", "retry-after", "location", "etag", "www-authenticate", "content-type"];

/** A credential as shown on screen: its first four characters, never the rest. */
export const masked = (secret: string) => `${secret.slice(0, 4)}…`;

function newRequestId(): string {
  return `docs-${uuid()}`;
}

/** The fetch of a request: its address, its init, and the request as the panel shows it. */
export function requestOf(out: Outgoing, signal: AbortSignal): { url: string; init: RequestInit; sent: Sent } {
  const url = urlOf(out);
  const requestId = newRequestId();
  const headers = new Headers({ "X-Request-Id": requestId });
  const shown: [string, string][] = [["X-Request-Id", requestId]];
  if (out.credential === "key" && out.secret) {
    headers.set("Authorization", `Bearer ${out.secret}`);
    shown.push(["Authorization", `Bearer ${masked(out.secret)}`]);
  }
  if (out.credential === "session") shown.push(["Cookie", "the site's session cookie (sent by the browser)"]);
  for (const p of sentParameters(out)) {
    if (p.in !== "header") continue;
    headers.set(p.name, p.sent);
    shown.push([p.name, p.sent]);
  }
  if (out.operation.answers === "event-stream") headers.set("Accept", "text/event-stream");
  let body: BodyInit | undefined;
  if (out.operation.body?.form === "file") {
    if (out.file) body = out.file;
  } else if (out.body !== null) {
    body = out.body;
  }
  if (body !== undefined && out.mediaType) {
    headers.set("Content-Type", out.mediaType);
    shown.push(["Content-Type", out.mediaType]);
  }
  const init: RequestInit = {
    method: out.operation.method,
    headers,
    body,
    // Only what the reader picked: the session cookie goes only with the session picked.
    credentials: out.credential === "session" ? "same-origin" : "omit",
    cache: "no-store",
    redirect: "follow",
    referrerPolicy: "no-referrer",
    signal,
  };
  return { url, init, sent: { method: out.operation.method, url, requestId, headers: shown } };
}

function orderedHeaders(headers: Headers): [string, string][] {
  const all = [...headers.entries()];
  const rank = (name: string) => {
    const k = KEY_HEADERS.indexOf(name);
    return k < 0 ? KEY_HEADERS.length : k;
  };
  return all.sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
}

/**
 * Sends the request. Resolves once the answer is read (for an event stream: once it
 * opens; its frames then reach `watcher` until it ends or `signal` aborts).
 */
export async function send(out: Outgoing, signal: AbortSignal, watcher?: StreamWatcher): Promise<{ sent: Sent; answer: Answer }> {
  const { url, init, sent } = requestOf(out, signal);
  const started = performance.now();
  const response = await fetch(url, init);
  const type = response.headers.get("content-type") ?? "";
  const head = { status: response.status, statusText: response.statusText, headers: orderedHeaders(response.headers) };
  if (type.startsWith("text/event-stream") && response.body) {
    void follow(response.body, signal, watcher);
    return { sent, answer: { ...head, body: { kind: "stream" }, ms: performance.now() - started } };
  }
  let body: AnswerBody;
  if (/^(application\/(json|problem\+json)|text\/)/.test(type) || type === "") {
    const text = await response.text();
    let json = false;
    let shown = text;
    if (type.includes("json")) {
      try {
        shown = JSON.stringify(JSON.parse(text), null, 2);
        json = true;
      } catch {
        // Shown as it came.
      }
    }
    body = { kind: "text", text: shown, json };
  } else {
    const blob = await response.blob();
    body = { kind: "file", type, size: blob.size, imageUrl: type.startsWith("image/") ? URL.createObjectURL(blob) : null };
  }
  return { sent, answer: { ...head, body, ms: performance.now() - started } };
}

async function follow(stream: ReadableStream<Uint8Array>, signal: AbortSignal, watcher?: StreamWatcher): Promise<void> {
  const parser = createParser({ onEvent: (m) => watcher?.frame(m), onComment: (c) => watcher?.comment(c) });
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    watcher?.end("the server ended the stream");
  } catch {
    watcher?.end(signal.aborted ? "stopped" : "the connection was lost");
  }
}
