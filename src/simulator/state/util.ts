// Small helpers with no dependencies (the core also runs in a browser later): ids,
// a fast non-cryptographic hash, canonical JSON for body comparison, base64url.

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Random bytes drawn in blocks: ids are made on every submit.
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function randomBytes(n: number): Uint8Array {
  if (poolAt + n > pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  poolAt += n;
  return pool.subarray(poolAt - n, poolAt);
}

/**
 * Time-ordered ids (ULID layout: 10 chars of time, 16 of randomness). Ids made in the
 * same millisecond increase, so "creation time, then id" is also the creation order.
 */
export class IdMaker {
  #lastTime = -1;
  /** Character codes of the 10 time and 16 random characters of the last id. */
  #codes: number[] = new Array<number>(26).fill(48);
  #random = new Uint8Array(16);
  /** Character codes of a whole id, one array per prefix, refilled per id (no array per id). */
  #whole = new Map<string, number[]>();

  next(prefix: string, time: number): string {
    const codes = this.#codes;
    if (time <= this.#lastTime) {
      this.#increment();
    } else {
      this.#lastTime = time;
      const bytes = randomBytes(16);
      for (let i = 0; i < 16; i++) this.#random[i] = bytes[i]! & 31;
      let t = time;
      for (let i = 9; i >= 0; i--) {
        codes[i] = CROCKFORD_CODES[t % 32]!;
        t = Math.floor(t / 32);
      }
    }
    for (let i = 0; i < 16; i++) codes[10 + i] = CROCKFORD_CODES[this.#random[i]!]!;
    // Made in one piece: a concatenation would keep a chain of string parts alive in
    // every stored record (ids are kept for the life of the state).
    let all = this.#whole.get(prefix);
    if (!all) {
      all = Array.from(prefix + "0".repeat(26), (c) => c.charCodeAt(0));
      this.#whole.set(prefix, all);
    }
    for (let i = 0; i < 26; i++) all[prefix.length + i] = codes[i]!;
    return String.fromCharCode.apply(null, all);
  }

  #increment(): void {
    const r = this.#random;
    for (let i = r.length - 1; i >= 0; i--) {
      if (r[i]! < 31) {
        r[i]!++;
        return;
      }
      r[i] = 0;
    }
  }
}

const CROCKFORD_CODES = Array.from(CROCKFORD, (c) => c.charCodeAt(0));

/** A short random token (request ids, epochs). */
export function randomToken(length = 20): string {
  return Array.from(randomBytes(length), (b) => CROCKFORD[b & 31]).join("");
}

let requestCounter = 0;
const requestPrefix = randomToken(10);
/** Request ids: unique per process, cheap to make on every answer. */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % 0x7fffffff;
  return `req_${requestPrefix}${requestCounter.toString(36).padStart(6, "0")}`;
}

/** FNV-1a, 32 bits, as 7 base-36 characters. For ETags and cursor checksums, not security. */
export function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(7, "0");
}

/** Deeper nesting than a request body (or a control body) can legitimately have. */
export const MAX_JSON_DEPTH = 32;

/** Whether a JSON value nests arrays or objects deeper than MAX_JSON_DEPTH levels (walked without recursion). */
export function nestsTooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (v === null || typeof v !== "object") continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * JSON with object keys sorted, so two bodies that differ only in key order or
 * whitespace compare equal. Returns undefined for a value nested deeper than a
 * request body can legitimately be (such a body is compared as "different").
 */
export function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_JSON_DEPTH) return undefined;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const item of value) {
      const part = canonicalJson(item, depth + 1);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(",")}]`;
  }
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const key of keys) {
    const part = canonicalJson((value as Record<string, unknown>)[key], depth + 1);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(",")}}`;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

const utf8Encoder = new TextEncoder();

export function base64url(text: string): string {
  const bytes = utf8Encoder.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += B64[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += B64[n & 63]!;
  }
  return out;
}

/** Decodes base64url; undefined for anything that is not. */
export function fromBase64url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    const chunk = text.slice(i, i + 4);
    let n = 0;
    for (let j = 0; j < 4; j++) n = (n << 6) | (j < chunk.length ? B64.indexOf(chunk[j]!) : 0);
    bytes.push((n >> 16) & 255);
    if (chunk.length > 2) bytes.push((n >> 8) & 255);
    if (chunk.length > 3) bytes.push(n & 255);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

/**
 * The value kept under `key`, made by `make` and stored the first time. Pass a factory
 * defined once (not an arrow written at the call), so a hot path allocates nothing.
 */
export function entryOf<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** Factories for entryOf. */
export const newList = <T>(): T[] => [];
export const newSet = <T>(): Set<T> => new Set();
export const newMap = <K, V>(): Map<K, V> => new Map();

// Timestamps repeat (a record's created_at and updated_at, its event): remember the last.
let lastMs = NaN;
let lastIso = "";
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    // Converted before it is remembered: a time that cannot be written must not leave its
    // value paired with the previous time's text.
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * The farthest a control input may set a time from now (100 years, in days): far enough
 * for any scenario, near enough that every time stays a writable date.
 */
export const LONGEST_SPAN_DAYS = 36_500;
