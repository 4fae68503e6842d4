// A recorded HAR 1.2 file as outside traffic: each entry becomes an exchange for the same
// sinks the passive proxy feeds, in the order the answers came. Read as the browsers'
// exports and Playwright's `recordHar` write them: headers as name/value lists (HTTP/2's
// pseudo-headers `:authority`, `:path`, ... taken for what they say), a body as `text`,
// base64 when `encoding` says so (a form given only as `params` rebuilt), sizes that may be
// missing or -1, `startedDateTime` with `time` and `timings` (-1 for unknown), each hop of a
// redirect an entry of its own, an event stream's frames parsed from its body when the file
// holds it. An entry without an answer (status 0 or -1: failed or aborted), a WebSocket or
// a non-HTTP address is skipped, counted under its reason; an answer whose body the file
// does not hold (Playwright's `content: "attach"` or `"omit"`, a stream the page closed) is
// judged on nothing of its body.
import { exchangeOf } from "../exchange.ts";
import type { SentRequest } from "../record.ts";
import { FrameReader } from "./frames.ts";
import { answerHeaders, CredentialNames, isApiRequest, keptRequestBody, requestHeaders, type Seen, type TrafficSink } from "./traffic.ts";

interface HarPair {
  name: string;
  value: string;
}

interface HarEntry {
  startedDateTime?: string;
  time?: number;
  _resourceType?: string;
  request?: { method?: string; url?: string; headers?: HarPair[]; postData?: { mimeType?: string; text?: string; params?: HarPair[]; encoding?: string; _file?: string } };
  response?: { status?: number; headers?: HarPair[]; content?: { size?: number; mimeType?: string; text?: string; encoding?: string; _file?: string }; _failureText?: string; _error?: string | null };
  timings?: Record<string, number | undefined>;
}

/** What a HAR file held, for the report. */
export interface HarRead {
  entries: number;
  /** Entries handed on (API and bare). */
  exchanges: number;
  /** Entries skipped, by why. */
  skipped: Record<string, number>;
}

export class HarFormatError extends Error {}

/** The log's entries of a HAR text (or its parsed object); a HarFormatError when it is not a HAR 1.x log. */
export function harEntries(har: string | object): HarEntry[] {
  let doc: unknown = har;
  if (typeof har === "string") {
    try {
      doc = JSON.parse(har.replace(/^\uFEFF/, ""));
    } catch (error) {
      throw new HarFormatError(`not a HAR file: it is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const log = (doc as { log?: { version?: unknown; entries?: unknown } } | null)?.log;
  if (!log || typeof log !== "object") throw new HarFormatError("not a HAR file: it has no `log` object");
  if (!Array.isArray(log.entries)) throw new HarFormatError("not a HAR file: `log.entries` is not a list");
  if (log.version !== undefined && !/^1\./.test(String(log.version))) throw new HarFormatError(`a HAR ${JSON.stringify(log.version)} log: only HAR 1.x is read`);
  return log.entries as HarEntry[];
}

/** When a time of the entry says something (HAR's -1, or nothing, for unknown). */
const known = (n: number | undefined): number => (typeof n === "number" && n > 0 ? n : 0);

/** When the answer's head came: the start, plus the phases before the first byte (each when known). */
function headAt(e: HarEntry, start: number): number {
  const t = e.timings ?? {};
  const before = known(t.blocked) + known(t.dns) + known(t.connect) + known(t.send) + known(t.wait);
  return start + (before > 0 ? before : known(e.time));
}

function pairs(list: HarPair[] | undefined): [string, string][] {
  return (list ?? []).filter((p) => typeof p?.name === "string").map((p) => [p.name.toLowerCase(), String(p.value ?? "")]);
}

function bytesOf(text: string, encoding: string | undefined): Buffer {
  return encoding === "base64" ? Buffer.from(text, "base64") : Buffer.from(text, "utf8");
}

/**
 * Hands every entry of `har` to `sink`, in the order the answers came. `apiBase`: only
 * entries to this address (and under its path) are API exchanges; without it, any origin's
 * `/v1`, `/oauth/` and `/.well-known/` paths are.
 */
export function readHar(har: string | object, sink: TrafficSink, options: { maxAnswerBytes: number; apiBase?: string }): HarRead {
  const entries = harEntries(har);
  const read: HarRead = { entries: entries.length, exchanges: 0, skipped: {} };
  const skip = (why: string) => void (read.skipped[why] = (read.skipped[why] ?? 0) + 1);
  const names = new CredentialNames();
  const base = options.apiBase ? new URL(options.apiBase.replace(/\/+$/, "").replace(/\/v1$/, "")) : undefined;
  const prefix = base ? base.pathname.replace(/\/+$/, "") : "";
  const timed = entries.map((e, i) => {
    const start = Date.parse(e?.startedDateTime ?? "");
    return { e, i, start: Number.isFinite(start) ? start : 0 };
  });
  const ordered = timed.map((t) => ({ ...t, head: headAt(t.e, t.start) })).sort((a, b) => a.head - b.head || a.i - b.i);
  const first = ordered.find((t) => t.start > 0)?.start ?? 0;
  for (const { e, start, head } of ordered) {
    const status = e?.response?.status;
    if (e?._resourceType === "websocket") {
      skip("a WebSocket");
      continue;
    }
    let url: URL;
    try {
      url = new URL(String(e?.request?.url));
    } catch {
      skip("no http(s) address");
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      skip("no http(s) address");
      continue;
    }
    if (typeof status !== "number" || status <= 0) {
      skip("no answer (the request failed or was aborted)");
      continue;
    }
    const method = (e.request?.method ?? "GET").toUpperCase();
    // HTTP/2 and 3: the authority is a pseudo-header; the other pseudo-headers repeat the request line.
    const lines = pairs(e.request?.headers);
    const authority = lines.find(([n]) => n === ":authority")?.[1];
    const plain = lines.filter(([n]) => !n.startsWith(":"));
    if (!plain.some(([n]) => n === "host")) plain.unshift(["host", authority ?? url.host]);
    const { headers, lines: more } = requestHeaders(plain);
    const ours = !base || (url.origin === base.origin && (!prefix || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)));
    const path = (ours && prefix ? url.pathname.slice(prefix.length) || "/" : url.pathname) + url.search;
    const post = e.request?.postData;
    let body: Buffer = Buffer.alloc(0);
    if (post && typeof post.text === "string" && post.text.length > 0) body = bytesOf(post.text, post.encoding);
    else if (post?.params?.length) body = Buffer.from(new URLSearchParams(post.params.map((p) => [p.name, p.value ?? ""])).toString());
    const sent: SentRequest = { method, url: url.href.replace(/#.*$/, ""), headers, ...(more ? { lines: more } : {}), ...keptRequestBody(body, body.length, headers["content-type"] ?? post?.mimeType) };

    const answerLines = pairs(e.response?.headers).filter(([n]) => !n.startsWith(":"));
    const content = e.response?.content ?? {};
    const type = (answerLines.find(([n]) => n === "content-type")?.[1] ?? content.mimeType ?? "").toLowerCase();
    if (!answerLines.some(([n]) => n === "content-type") && content.mimeType && content.mimeType !== "x-unknown") answerLines.push(["content-type", content.mimeType]);
    const stream = type.startsWith("text/event-stream");
    const hasText = typeof content.text === "string";
    const empty = status === 204 || status === 304 || method === "HEAD" || content.size === 0;
    const bytes = hasText ? bytesOf(content.text!, content.encoding) : Buffer.alloc(0);
    const seen: Seen = { bare: !ours || !isApiRequest(method, path, headers), sentAt: start, answeredAt: head, elapsedSeconds: first > 0 && start > 0 ? (head - first) / 1000 : 0 };
    const label = names.of(headers);
    const how = { path, label, sentRequestId: headers["x-request-id"], startedAt: start, ms: Math.max(0, head - start) };
    read.exchanges++;
    if (stream && status === 200) {
      const opened = exchangeOf(sent, { status, headers: answerHeaders(answerLines), text: "", size: 0 }, how);
      sink.exchange(opened, seen);
      if (hasText) {
        const reader = new FrameReader((frame) => sink.frame(frame, opened), (n) => sink.overflow(opened, n), options.maxAnswerBytes);
        reader.feed(bytes.toString("utf8"), bytes.length);
        // A last frame the recording cut before its blank line is not a frame.
      }
      continue;
    }
    const size = hasText ? bytes.length : Math.max(0, content.size ?? 0);
    const tooLarge = bytes.length > options.maxAnswerBytes;
    const unknown: Seen["bodyUnknown"] = tooLarge ? "too large" : !hasText && !empty ? "not recorded" : undefined;
    const text = unknown ? "" : bytes.toString("utf8");
    sink.exchange(exchangeOf(sent, { status, headers: answerHeaders(answerLines), text, size }, how), { ...seen, ...(unknown ? { bodyUnknown: unknown } : {}) });
  }
  return read;
}
