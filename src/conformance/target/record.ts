// What the suite keeps of a request and its answer, so that a failure can be replayed:
// a copy-paste `curl` line that needs nothing beside it (a binary body is written by
// `printf`, a long run of one character generated) and a HAR entry, with every secret
// masked by the run's Masker (secrets.ts).
import { cutValue, isCredentialHeader, type Masker, type Part } from "./secrets.ts";

export interface SentRequest {
  method: string;
  /** The absolute address the request went to. */
  url: string;
  headers: Record<string, string>;
  /** Header lines sent besides `headers`, each a line of its own (a header given twice). */
  lines?: [string, string][];
  /** The body as sent: text, bytes, or none. */
  body?: string | Uint8Array;
  /**
   * Bytes of the whole body, when `body` holds only its first ones (traffic the suite did
   * not send, whose bodies it keeps a bounded prefix of): a reproduction then says so.
   */
  bodySize?: number;
}

export interface ExchangeRecord {
  sent: SentRequest;
  status: number;
  /** The answer's headers (for a stream, those that opened it). */
  headers: [string, string][];
  /** The answer's body as kept ("" for a stream or a binary body). */
  body: KeptText;
  startedAt: string;
  ms: number;
}

/** A body as the record keeps it: its first characters, and the bytes of the whole body seen. */
export interface KeptText {
  text: string;
  size: number;
}

/**
 * Most characters of an answer's body kept once it is judged (in its record, and so in the
 * results, the report and the HAR file): whatever the answer's size and the run's number
 * of requests, what the run keeps of each answer is bounded; the rest is released.
 */
export const KEPT_BODY = 64 * 1024;

/** What a record keeps of a body of `size` bytes whose text is `text`: its first KEPT_BODY characters. */
export function keptBody(text: string, size: number): KeptText {
  // A copy, not a slice: a slice of a string may hold on to the whole of it.
  return { text: text.length > KEPT_BODY ? Buffer.from(text.slice(0, KEPT_BODY)).toString() : text, size };
}

/** Bodies longer than this are not written out on the command line. */
const INLINE_BODY = 16 * 1024;
/** A run of one character at least this long is written as a generated run, not spelled out. */
const LONG_RUN = 1024;

/** A POSIX shell word for masked parts: single-quoted, or double-quoted where a given secret is expanded from its variable. */
function shellWord(parts: Part[]): string {
  if (parts.every((p) => p.variable === undefined)) return singleQuoted(parts.map((p) => p.text).join(""));
  return `"${parts.map((p) => (p.variable !== undefined ? `\${${p.variable}}` : p.text.replace(/[\\"$`]/g, (c) => `\\${c}`))).join("")}"`;
}

/** A copy-paste `curl` line that sends the request again, secrets masked (`masker`). */
export function curlLine(sent: SentRequest, masker: Masker): string {
  const word = (text: string) => shellWord(masker.parts(text));
  // curl resolves dot segments too, unless told to send the path as it is.
  const asIs = /\/\.{1,2}(?=[/?#]|$)/.test(sent.url) ? ["--path-as-is"] : [];
  const words = ["curl", "-sS", "-i", ...asIs, "-X", sent.method, word(sent.url)];
  for (const [name, value] of headerLines(sent)) {
    const parts = masker.parts(value);
    // A credential header the run knows nothing of is cut whole.
    const masked = isCredentialHeader(name) && parts.every((p) => p.variable === undefined) && parts.map((p) => p.text).join("") === value ? [{ text: cutValue(value) }] : parts;
    words.push("-H", shellWord([{ text: `${headerName(name)}: ` }, ...masked]));
  }
  const body = sent.body;
  if (body === undefined) return words.join(" ");
  if (sent.bodySize !== undefined && sent.bodySize > (typeof body === "string" ? Buffer.byteLength(body) : body.length)) {
    return `${words.join(" ")} --data-binary @body.bin  # the ${sent.bodySize} bytes sent (only the first ${KEPT_BODY} were kept)`;
  }
  if (typeof body !== "string") {
    const bytes = printfBytes(body);
    return bytes ? `${bytes} | ${words.join(" ")} --data-binary @-` : `${words.join(" ")} --data-binary @body.bin  # the ${body.length} bytes sent (not shown)`;
  }
  if (body.length <= INLINE_BODY) return `${words.join(" ")} --data-binary ${word(body)}`;
  const run = longestRun(body);
  if (run && body.length - run.length <= INLINE_BODY) {
    const fill = run.char === "'" ? `"'"` : singleQuoted(run.char);
    const generate = `{ printf '%s' ${word(body.slice(0, run.start))}; head -c ${run.length} /dev/zero | tr '\\0' ${fill}; printf '%s' ${word(body.slice(run.start + run.length))}; }`;
    return `${generate} | ${words.join(" ")} --data-binary @-`;
  }
  return `${words.join(" ")} --data-binary @body.json  # the ${Buffer.byteLength(body)} bytes sent (not shown; the HAR file holds them)`;
}

/** Binary bodies up to this size are written out on the command line, byte for byte. */
const INLINE_BINARY = 256 * 1024;
/** Bytes per `printf` (its format is one argument of a command line, at most 128 KiB on Linux). */
const PRINTF_BYTES = 16 * 1024;

/** Bytes as `printf` commands that write them exactly (printable ASCII as is, the rest as POSIX octal escapes), or undefined when too many. */
function printfBytes(bytes: Uint8Array): string | undefined {
  if (bytes.length > INLINE_BINARY) return undefined;
  const commands: string[] = [];
  for (let i = 0; i === 0 || i < bytes.length; i += PRINTF_BYTES) {
    let format = "";
    for (const b of bytes.subarray(i, i + PRINTF_BYTES)) format += b >= 0x20 && b < 0x7f && b !== 0x25 && b !== 0x5c && b !== 0x27 ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, "0")}`;
    commands.push(`printf '${format}'`);
  }
  return commands.length === 1 ? commands[0] : `{ ${commands.join("; ")}; }`;
}

/** Every header line of a request as sent, the repeated ones included. */
function headerLines(sent: SentRequest): [string, string][] {
  return [...Object.entries(sent.headers), ...(sent.lines ?? [])];
}

function singleQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `x-request-id` -> `X-Request-Id` (the suite sends its headers in lower case). */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase());
}

function longestRun(text: string): { start: number; length: number; char: string } | undefined {
  let best: { start: number; length: number; char: string } | undefined;
  for (let i = 0; i < text.length; ) {
    let j = i + 1;
    while (j < text.length && text[j] === text[i]) j++;
    if (j - i >= LONG_RUN && (!best || j - i > best.length) && text.charCodeAt(i) < 128) best = { start: i, length: j - i, char: text[i]! };
    i = j;
  }
  return best;
}


/** A cited exchange as a report keeps it: JSON, secrets masked, long bodies cut. */
export interface MaskedExchange {
  startedAt: string;
  ms: number;
  request: { method: string; url: string; headers: [string, string][]; body?: KeptBody };
  response: { status: number; headers: [string, string][]; body: KeptBody };
}

export interface KeptBody {
  /** The text (cut to its first characters when `size` is larger), absent for bytes. */
  text?: string;
  /** The whole body's size in bytes. */
  size: number;
  mimeType: string;
}

/** A body as a report keeps it: bytes by their size only, text masked and cut (saying so) when longer than KEPT_BODY or than what was kept of it. */
function kept(body: string | Uint8Array, mimeType: string, masker: Masker, size = typeof body === "string" ? Buffer.byteLength(body) : body.length): KeptBody {
  if (typeof body !== "string") return { size, mimeType };
  const whole = Buffer.byteLength(body) >= size;
  const text = body.length > KEPT_BODY || !whole ? `${body.slice(0, KEPT_BODY)}… (${size} bytes, cut)` : body;
  return { text: masker.text(text), size, mimeType };
}

export function maskExchange(r: ExchangeRecord, masker: Masker): MaskedExchange {
  const headers = (list: [string, string][]) => list.map(([n, v]): [string, string] => [n, masker.header(n, v)]);
  const type = (list: [string, string][]) => list.find(([n]) => n.toLowerCase() === "content-type")?.[1] ?? "";
  const requestHeaders = headerLines(r.sent);
  return {
    startedAt: r.startedAt,
    ms: r.ms,
    request: {
      method: r.sent.method,
      url: masker.text(r.sent.url),
      headers: headers(requestHeaders),
      ...(r.sent.body !== undefined ? { body: kept(r.sent.body, type(requestHeaders), masker, r.sent.bodySize) } : {}),
    },
    response: { status: r.status, headers: headers(r.headers), body: kept(r.body.text, type(r.headers), masker, r.body.size) },
  };
}
