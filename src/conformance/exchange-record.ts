// What the suite keeps of a request and its answer, so that a failure can be replayed:
// a copy-paste `curl` line and a HAR entry, with every secret masked. A secret the caller
// gave is written as the environment variable the CLI reads it from (`$HUB_API_KEY`), so
// the line runs as is in the shell that ran the suite; any other credential (an OAuth
// token the run obtained, a code, a cookie) is cut to its first characters.

export interface SentRequest {
  method: string;
  /** The absolute address the request went to. */
  url: string;
  headers: Record<string, string>;
  /** Header lines sent besides `headers`, each a line of its own (a header given twice). */
  lines?: [string, string][];
  /** The body as sent: text, bytes, or none. */
  body?: string | Uint8Array;
}

export interface ExchangeRecord {
  sent: SentRequest;
  status: number;
  /** The answer's headers (for a stream, those that opened it). */
  headers: [string, string][];
  /** The answer's body as text ("" for a stream or a binary body). */
  text: string;
  startedAt: string;
  ms: number;
}

/** A secret of the run and the environment variable that holds it. */
export interface Secret {
  value: string;
  variable: string;
}

/** JSON fields that carry credentials (OAuth replies and requests); a form or query adds `code` and `token`. */
const SECRET_FIELDS = ["access_token", "refresh_token", "id_token", "code_verifier", "client_assertion", "client_secret", "cookie"];
const SECRET_FIELD = new RegExp(`("(?:${SECRET_FIELDS.join("|")})"\\s*:\\s*")([^"]{0,4})[^"]*(")`, "g");
const SECRET_PARAM = new RegExp(`((?:^|[?&])(?:${[...SECRET_FIELDS, "code", "token"].join("|")})=)([^&#\\s]{0,4})[^&#\\s]*`, "g");
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "set-cookie"]);
/** Bodies longer than this are not written out on the command line. */
const INLINE_BODY = 16 * 1024;
/** A run of one character at least this long is written as a generated run, not spelled out. */
const LONG_RUN = 1024;

export class Masker {
  readonly #secrets: Secret[];

  constructor(secrets: readonly Secret[]) {
    // Longest first, so that a secret containing another is replaced whole.
    this.#secrets = secrets.filter((s) => s.value.length >= 4).sort((a, b) => b.value.length - a.value.length);
  }

  /** Splits a text into plain parts and the secrets the caller gave (as their variables). */
  #split(text: string): { text: string; variable?: string }[] {
    let parts: { text: string; variable?: string }[] = [{ text }];
    for (const s of this.#secrets) {
      parts = parts.flatMap((p) => (p.variable !== undefined ? [p] : p.text.split(s.value).flatMap((t, i) => (i === 0 ? [{ text: t }] : [{ text: "", variable: s.variable }, { text: t }]))));
    }
    return parts.filter((p) => p.variable !== undefined || p.text.length > 0);
  }

  /** A text with the caller's secrets as `$VARIABLE` and any other credential cut short. */
  text(text: string): string {
    return this.#split(cutCredentials(text)).map((p) => (p.variable !== undefined ? `$${p.variable}` : p.text)).join("");
  }

  /** A header value: the caller's secrets as `$VARIABLE`, any other credential cut short. */
  header(name: string, value: string): string {
    const masked = this.text(value);
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || masked !== value) return masked;
    return cutValue(value);
  }

  /** A word for a POSIX shell: single-quoted, or double-quoted where a secret is expanded from its variable. */
  shellWord(text: string): string {
    const parts = this.#split(text);
    if (parts.every((p) => p.variable === undefined)) return singleQuoted(text);
    return `"${parts.map((p) => (p.variable !== undefined ? `\${${p.variable}}` : p.text.replace(/[\\"$`]/g, (c) => `\\${c}`))).join("")}"`;
  }

  /** A copy-paste `curl` line that sends the request again. */
  curl(sent: SentRequest): string {
    // curl resolves dot segments too, unless told to send the path as it is.
    const asIs = /\/\.{1,2}(?=[/?#]|$)/.test(sent.url) ? ["--path-as-is"] : [];
    const words = ["curl", "-sS", "-i", ...asIs, "-X", sent.method, this.shellWord(cutCredentials(sent.url))];
    for (const [name, value] of headerLines(sent)) {
      const masked = this.#split(value).some((p) => p.variable !== undefined) ? value : CREDENTIAL_HEADERS.has(name.toLowerCase()) ? cutValue(value) : cutCredentials(value);
      words.push("-H", this.shellWord(`${headerName(name)}: ${masked}`));
    }
    const body = sent.body;
    if (body === undefined) return words.join(" ");
    if (typeof body !== "string") return `${words.join(" ")} --data-binary @body.bin  # the ${body.length} bytes sent (not shown)`;
    const text = cutCredentials(body);
    if (text.length <= INLINE_BODY) return `${words.join(" ")} --data-binary ${this.shellWord(text)}`;
    const run = longestRun(text);
    if (run && text.length - run.length <= INLINE_BODY) {
      const before = text.slice(0, run.start);
      const after = text.slice(run.start + run.length);
      const fill = run.char === "'" ? `"'"` : singleQuoted(run.char);
      const generate = `{ printf '%s' ${this.shellWord(before)}; head -c ${run.length} /dev/zero | tr '\\0' ${fill}; printf '%s' ${this.shellWord(after)}; }`;
      return `${generate} | ${words.join(" ")} --data-binary @-`;
    }
    return `${words.join(" ")} --data-binary @body.json  # the ${Buffer.byteLength(text)} bytes sent (not shown; the HAR file holds them)`;
  }
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

/** A credential the suite did not get from the caller: its scheme and first four characters. */
function cutValue(value: string): string {
  const m = /^(\w+\s+)?(.*)$/s.exec(value)!;
  const scheme = m[1] ?? "";
  const secret = m[2] ?? "";
  const name = /^([^=;\s]+=)(.*)$/s.exec(secret);
  if (name) return `${scheme}${name[1]}${name[2]!.slice(0, 4)}…`;
  return `${scheme}${secret.slice(0, 4)}…`;
}

/** Credential fields of JSON and form texts cut to their first four characters. */
function cutCredentials(text: string): string {
  return text.replace(SECRET_FIELD, (_m, head: string, first: string, tail: string) => `${head}${first}…${tail}`).replace(SECRET_PARAM, (_m, head: string, first: string) => `${head}${first}…`);
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

/** Most characters of a body a report keeps (an oversized body is cut, and says so). */
const KEPT_BODY = 64 * 1024;

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

function kept(body: string | Uint8Array, mimeType: string, masker: Masker): KeptBody {
  if (typeof body !== "string") return { size: body.length, mimeType };
  const size = Buffer.byteLength(body);
  const text = body.length > KEPT_BODY ? `${body.slice(0, KEPT_BODY)}… (${size} bytes, cut)` : body;
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
      ...(r.sent.body !== undefined ? { body: kept(r.sent.body, type(requestHeaders), masker) } : {}),
    },
    response: { status: r.status, headers: headers(r.headers), body: kept(r.text, type(r.headers), masker) },
  };
}
