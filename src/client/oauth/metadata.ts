// What the authorization server refuses in client metadata, checked before a client ID
// metadata document is published or a registration is sent (seed, Authentication:
// "Getting a client_id", "Document address and response requirements", "Redirect URI
// rules"). Every check reads the caller's own strings: `new URL` would drop `.`/`..`
// segments, an empty fragment or an empty userinfo, while the server compares the
// original `client_id` byte for byte.
//
// Left to the server (a client cannot know them): whether a host name resolves to a public
// address, the document's size and download limits, the caching bounds.

/** A metadata field that the authorization server would refuse; `field` names it (`redirect_uris[1]`, `jwks`, ...). */
export class ClientMetadataError extends TypeError {
  override name = "ClientMetadataError";
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

const fail = (field: string, message: string): never => {
  throw new ClientMetadataError(field, message);
};

// RFC 3986 characters, and `%` only as an escape (the contract's `format: uri`).
const URI_SYNTAX = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$/;
// The contract's RedirectUri for http (loopback hosts spelled exactly, no userinfo).
const LOOPBACK_HTTP = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?(\/[^#]*)?$/;
const DOT_SEGMENT = /^(\.|%2e){1,2}$/i;
const URL_FIELDS = ["jwks_uri", "client_uri", "logo_uri", "policy_uri", "tos_uri"] as const;

function address(field: string, value: unknown): string {
  if (typeof value !== "string" || !URI_SYNTAX.test(value)) fail(field, "must be an absolute address (RFC 3986 characters only)");
  return value as string;
}

/** An https address (the contract's HttpsUrl: the value starts with `https://`). */
function https(field: string, value: unknown): string {
  const raw = address(field, value);
  if (!raw.startsWith("https://")) fail(field, `must be an https address, got ${raw}`);
  return raw;
}

/** Redirect URI rules: https, or http on `localhost`, `127.0.0.1`, `[::1]`; no fragment. */
export function checkRedirectUri(uri: unknown, field = "redirect_uri"): void {
  const raw = address(field, uri);
  if (raw.includes("#")) fail(field, `${raw} has a fragment`);
  if (raw.startsWith("https://")) {
    if (!/^https:\/\/[^/?]/.test(raw)) fail(field, `${raw} has no host`);
    return;
  }
  if (!LOOPBACK_HTTP.test(raw)) fail(field, `${raw} must be https, or http on localhost, 127.0.0.1 or [::1]`);
}

/** Loopback, private, link-local, shared, unspecified, multicast and reserved addresses, and `localhost` names. */
function internalHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (v4) {
    const a = Number(v4[1]);
    const b = Number(v4[2]);
    return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  // [::], [::1], IPv4-mapped, unique local fc00::/7, link-local fe80::/10, multicast ff00::/8.
  return /^\[(::1?\]|::ffff:|f[cdf][0-9a-f]{2}:|fe[89ab][0-9a-f]:)/i.test(host);
}

/**
 * Document address requirements: https only; a host, no userinfo, no fragment, a path
 * without `.` or `..` segments (also percent-encoded); not a loopback or internal host.
 */
export function checkDocumentAddress(clientId: unknown, field = "client_id"): void {
  const raw = https(field, clientId);
  if (raw.includes("#")) fail(field, "must not have a fragment");
  const rest = raw.slice("https://".length);
  const end = rest.search(/[/?]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  if (authority.includes("@")) fail(field, "must not carry user information");
  if (authority === "" || authority.startsWith(":")) fail(field, "has no host");
  const path = end < 0 || rest[end] === "?" ? "" : rest.slice(end).split("?")[0]!;
  if (path === "" || path === "/") fail(field, "must have a path (the document's own address, e.g. https://app.example/oauth/client.json)");
  if (path.split("/").some((segment) => DOT_SEGMENT.test(segment))) fail(field, "must not contain . or .. segments (the server compares the address byte for byte)");
  // `new URL` reads the host as the server resolves it (127.1, 0x7f.0.0.1, [::ffff:7f00:1], ...).
  let host: string;
  try {
    host = new URL(raw).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return fail(field, "is not an address");
  }
  if (internalHost(host)) fail(field, `the host ${host} is not a public address (loopback and internal hosts are refused)`);
}

type Metadata = Record<string, unknown>;

/** Public keys only: an asymmetric key type and no private or secret member. */
function checkJwks(jwks: unknown): void {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (typeof jwks !== "object" || !Array.isArray(keys)) return fail("jwks", "must be a JSON Web Key Set ({ keys: [...] })");
  keys.forEach((key: unknown, i) => {
    const k = key as Record<string, unknown> | null;
    if (typeof k !== "object" || k === null || !["RSA", "EC", "OKP"].includes(String(k.kty))) fail(`jwks.keys[${i}]`, "must be an asymmetric public key (kty RSA, EC or OKP)");
    for (const member of ["d", "p", "q", "dp", "dq", "qi", "k"]) if (member in k!) fail(`jwks.keys[${i}]`, `holds the private member "${member}": publish public keys only`);
  });
}

function stringArray(m: Metadata, field: string): string[] | undefined {
  const v = m[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) fail(field, "must be an array of strings");
  return v as string[];
}

function oneOf(m: Metadata, field: string, allowed: readonly string[], why = ""): void {
  const v = m[field];
  if (v !== undefined && !allowed.includes(v as string)) fail(field, `must be ${allowed.join(" or ")}, got ${JSON.stringify(v)}${why}`);
}

/** The metadata a document and a registration share: redirect addresses, grant and response types, authentication and keys. */
export function checkClientMetadata(m: Metadata): void {
  if (typeof m !== "object" || m === null) fail("metadata", "must be an object");
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) fail("redirect_uris", "must be a non-empty array of addresses");
  (uris as unknown[]).forEach((uri, i) => checkRedirectUri(uri, `redirect_uris[${i}]`));
  if (m.client_name !== undefined && typeof m.client_name !== "string") fail("client_name", "must be a string");
  const grants = stringArray(m, "grant_types");
  if (grants && !grants.includes("authorization_code")) fail("grant_types", "must include authorization_code, the only flow of this server");
  if (stringArray(m, "response_types")?.some((t) => t !== "code")) fail("response_types", 'must be ["code"]');
  oneOf(m, "token_endpoint_auth_method", ["none", "private_key_jwt"], ": no client secret is ever issued and shared-secret methods are refused");
  oneOf(m, "application_type", ["web", "native"]);
  if (m.jwks !== undefined) checkJwks(m.jwks);
  if (m.jwks_uri !== undefined) https("jwks_uri", m.jwks_uri);
  if (m.jwks !== undefined && m.jwks_uri !== undefined) fail("jwks_uri", "give jwks or jwks_uri, never both");
  if (m.token_endpoint_auth_method === "private_key_jwt" && m.jwks === undefined && m.jwks_uri === undefined) fail("jwks", "a private_key_jwt client needs jwks or jwks_uri");
}

/** Everything the server checks in a client ID metadata document that can be checked before publishing it. */
export function checkMetadataDocument(doc: Metadata): void {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) fail("document", "must be a JSON object");
  checkDocumentAddress(doc.client_id);
  for (const field of ["client_secret", "client_secret_expires_at"]) if (doc[field] !== undefined) fail(field, "a client ID metadata document never holds a client secret");
  checkClientMetadata(doc);
  for (const field of URL_FIELDS) if (doc[field] !== undefined) https(field, doc[field]);
  stringArray(doc, "contacts");
}
