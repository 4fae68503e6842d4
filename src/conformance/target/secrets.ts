// The one place where the run's secrets are masked, on everything that leaves the suite
// (the report and every text in it, the curl lines, the HAR entries, the progress and
// --verbose lines, the errors it throws). A secret the caller gave (the options the CLI's
// table marks secret) is written as the environment variable the CLI reads it from
// (`$HUB_API_KEY`), so that a reproduction runs as is in the shell that ran the suite; a
// credential the run obtained or made (an OAuth access or refresh token, an authorization
// code, a cookie, a client secret or assertion, learnt from every request and answer as
// they pass) is cut to its first characters (`gho_…`), and so is any credential field a
// text still holds.

/** A secret of the run and the environment variable that holds it. */
export interface Secret {
  value: string;
  variable: string;
}

/** A text cut into plain parts (credentials already cut) and the given secrets, as their variables. */
export type Part = { text: string; variable?: undefined } | { text: ""; variable: string };

/**
 * JSON fields and form or query parameters that carry credentials (`secret` is where the
 * simulator's control interface shows a key or a session).
 */
const CREDENTIAL_FIELDS = ["access_token", "refresh_token", "id_token", "registration_access_token", "code_verifier", "client_assertion", "client_secret", "api_key", "password", "cookie", "secret"];
/** Only in a form or a query (in JSON, `code` is an error code and `token` a field of its own). */
const CREDENTIAL_PARAMS = [...CREDENTIAL_FIELDS, "code", "token"];
// A value already masked (`$HUB_API_KEY`, `${HUB_API_KEY}` in a curl line) is left as it is.
const CREDENTIAL_FIELD = new RegExp(`("(?:${CREDENTIAL_FIELDS.join("|")})"\\s*:\\s*")(?!\\$)([^"\\s]{0,4})[^"\\s]+("?)`, "g");
const CREDENTIAL_PARAM = new RegExp(`((?:^|[?&#])(?:${CREDENTIAL_PARAMS.join("|")})=)(?!\\$)([^&#\\s"']{0,4})[^&#\\s"']+`, "g");
/** A JSON object of keys by role (a sandbox's `keys` on the simulator's control interface): each value is a credential. */
const KEYS_OBJECT = /("keys"\s*:\s*\{)([^{}]*)(\})/g;
const KEYS_VALUE = /("[^"]*"\s*:\s*")(?!\$)([^"\s]{0,4})[^"\s]+(")/g;
/** A key or session named in a path of the simulator's control interface (`/_sim/keys/{key}/revoke`, `/_sim/sessions/{id}`). */
const CONTROL_SEGMENT = /(\/_sim\/(?:keys|sessions)\/)(?!\$)([^/?#\s"']{0,4})[^/?#\s"']+/g;
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]);
/** The shortest given secret masked (a shorter one would mask ordinary words). */
const SHORTEST_GIVEN = 4;
/** The shortest credential learnt from an exchange that is masked. */
const SHORTEST_OBTAINED = 8;
/** Request bodies longer than this are not searched for credentials (generated padding). */
const SEARCHED_BODY = 64 * 1024;

/** The forms a value takes in a text: as is, and encoded in a URL or a form. */
function spellings(value: string): string[] {
  return [...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])];
}

/** A credential the suite did not get from the caller: its scheme and first four characters. */
export function cutValue(value: string): string {
  const m = /^(\w+\s+)?(.*)$/s.exec(value)!;
  const scheme = m[1] ?? "";
  const secret = m[2] ?? "";
  const name = /^([^=;\s]+=)(.*)$/s.exec(secret);
  if (name) return `${scheme}${name[1]}${name[2]!.slice(0, 4)}…`;
  return `${scheme}${secret.slice(0, 4)}…`;
}

/**
 * Credentials cut to their first four characters by where they sit, whatever their value:
 * credential fields of JSON and form texts, a `keys` object's values, and a key or session
 * in a control path.
 */
function cutCredentials(text: string): string {
  return text
    .replace(CREDENTIAL_FIELD, (_m, head: string, first: string, tail: string) => `${head}${first}…${tail}`)
    .replace(CREDENTIAL_PARAM, (_m, head: string, first: string) => `${head}${first}…`)
    .replace(KEYS_OBJECT, (_m, open: string, inside: string, close: string) => `${open}${inside.replace(KEYS_VALUE, (_v, head: string, first: string, tail: string) => `${head}${first}…${tail}`)}${close}`)
    .replace(CONTROL_SEGMENT, (_m, head: string, first: string) => `${head}${first}…`);
}

export interface MaskerOptions {
  /**
   * Most credentials obtained from traffic remembered by value (the oldest forgotten
   * beyond it): a run that watches traffic for hours keeps a bounded list, and masks by
   * where a credential sits the ones it forgot. Default: every one.
   */
  remember?: number;
}

export class Masker {
  /** The given secrets in each spelling, longest first (a secret containing another is replaced whole). */
  readonly #given: Secret[];
  /** Credentials the run obtained, longest first. */
  #obtained: string[] = [];
  /** The same, in the order they were obtained (the oldest is forgotten first). */
  readonly #order: string[] = [];
  readonly #known = new Set<string>();
  readonly #remember: number;

  constructor(given: readonly Secret[], options: MaskerOptions = {}) {
    this.#remember = options.remember ?? Number.POSITIVE_INFINITY;
    this.#given = given
      .filter((s) => s.value.length >= SHORTEST_GIVEN)
      .flatMap((s) => spellings(s.value).map((value) => ({ value, variable: s.variable })))
      .sort((a, b) => b.value.length - a.value.length);
    for (const s of this.#given) this.#known.add(s.value);
  }

  /** A credential the run obtained or made: masked from now on wherever it appears. */
  obtain(value: string | undefined): void {
    if (!value || value.length < SHORTEST_OBTAINED) return;
    const fresh = spellings(value).filter((v) => !this.#known.has(v));
    if (fresh.length === 0) return;
    for (const v of fresh) this.#known.add(v);
    this.#order.push(...fresh);
    const forgotten = new Set(this.#order.length > this.#remember ? this.#order.splice(0, this.#order.length - this.#remember) : []);
    for (const v of forgotten) this.#known.delete(v);
    this.#obtained = [...this.#obtained.filter((v) => !forgotten.has(v)), ...fresh.filter((v) => !forgotten.has(v))].sort((a, b) => b.length - a.length);
  }

  /**
   * Learns the credentials a request and its answer carry: the Authorization and Cookie
   * values sent, credential parameters of its address and form or JSON body, and in the
   * answer a Set-Cookie, the parameters of a Location (an authorization code) and the
   * credential fields of a JSON body (tokens, a client secret).
   */
  learn(sent: { url: string; headers: Record<string, string>; lines?: [string, string][]; body?: string | Uint8Array }, answer?: { headers: Iterable<[string, string]>; json?: unknown }): void {
    for (const [name, value] of [...Object.entries(sent.headers), ...(sent.lines ?? [])]) {
      const n = name.toLowerCase();
      if (n === "authorization") this.obtain(value.replace(/^\w+\s+/, ""));
      if (n === "cookie") this.#cookies(value);
    }
    this.#params(sent.url);
    if (typeof sent.body === "string" && sent.body.length <= SEARCHED_BODY) {
      const body = sent.body.trim();
      if (body.startsWith("{") || body.startsWith("[")) {
        try {
          this.#fields(JSON.parse(body));
        } catch {
          // not JSON after all
        }
      } else this.#params(`?${body}`);
    }
    if (!answer) return;
    for (const [name, value] of answer.headers) {
      const n = name.toLowerCase();
      if (n === "set-cookie") this.#cookies(value.split(";")[0]!);
      if (n === "location") this.#params(value);
    }
    this.#fields(answer.json);
  }

  #cookies(value: string): void {
    this.obtain(value.trim());
    for (const pair of value.split(";")) this.obtain(pair.slice(pair.indexOf("=") + 1).trim());
  }

  #params(url: string): void {
    let u: URL;
    try {
      u = new URL(url, "http://x");
    } catch {
      return;
    }
    for (const query of [u.search, u.hash.replace(/^#/, "?")]) {
      for (const [k, v] of new URLSearchParams(query)) if (CREDENTIAL_PARAMS.includes(k)) this.obtain(v);
    }
  }

  #fields(value: unknown): void {
    if (Array.isArray(value)) for (const v of value) this.#fields(v);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === "string" && CREDENTIAL_FIELDS.includes(k)) this.obtain(v);
        else this.#fields(v);
      }
    }
  }

  /** A text as parts: the given secrets as their variables, everything else with its credentials cut. */
  parts(text: string): Part[] {
    let parts: Part[] = [{ text }];
    for (const s of this.#given) {
      if (!text.includes(s.value)) continue;
      parts = parts.flatMap((p) => (p.variable !== undefined ? [p] : p.text.split(s.value).flatMap((t, i): Part[] => (i === 0 ? [{ text: t }] : [{ text: "", variable: s.variable }, { text: t }]))));
    }
    return parts.filter((p) => p.variable !== undefined || p.text.length > 0).map((p) => (p.variable !== undefined ? p : { text: this.#cut(p.text) }));
  }

  /** A text with its obtained credentials, and any credential field, cut short. */
  #cut(text: string): string {
    let out = text;
    for (const value of this.#obtained) if (out.includes(value)) out = out.split(value).join(`${value.slice(0, 4)}…`);
    return cutCredentials(out);
  }

  /** A text with the given secrets as `$VARIABLE` and any other credential cut short. */
  text(text: string): string {
    return this.parts(text).map((p) => (p.variable !== undefined ? `$${p.variable}` : p.text)).join("");
  }

  /** A header value: the given secrets as `$VARIABLE`, any other credential cut short. */
  header(name: string, value: string): string {
    const masked = this.text(value);
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || masked !== value) return masked;
    return cutValue(value);
  }

  /** Every text in a value (a report), masked; what is not text is kept. */
  deep<T>(value: T): T {
    if (typeof value === "string") return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deep(v)])) as T;
    }
    return value;
  }
}

/** Whether a header carries a credential (Authorization, Cookie, Set-Cookie). */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}
