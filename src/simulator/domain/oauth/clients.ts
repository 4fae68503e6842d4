// OAuth clients: the redirect URI rules, dynamic registration (RFC 7591) and client ID
// metadata documents. The simulator does not reach the network: a document is read from
// the documents published through `PUT /_sim/oauth/documents` (the same rules apply to
// its address and to the "response" as to a real download), and so is a `jwks_uri`.
import { LOOPBACK_REDIRECT_HOSTS } from "../../../common/loopback.ts";
import { schemaValidator, toDetails } from "../../../contract/validator.ts";
import type { HubBase } from "../../state/base.ts";
import type { ClientRecord, Counter, Jwks, OAuthState, Published, ResolvedOAuthOptions } from "../../state/oauth.ts";
import { failure, type Failure } from "./failure.ts";

export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** Size limit of a client ID metadata document (not shown by the seed; simulator convention). */
export const DOCUMENT_MAX_BYTES = 5 * 1024;

/** Why a redirect address breaks the rules, or undefined when it keeps them. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri === "") return "a redirect address must be a non-empty string";
  if (uri.includes("#")) return `${uri} has a fragment`;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${uri} is not an absolute address`;
  }
  if (u.protocol === "https:") return u.hostname ? undefined : `${uri} has no host`;
  if (u.protocol === "http:") return LOOPBACK_REDIRECT_HOSTS.has(u.hostname) ? undefined : `${uri}: http is allowed only on localhost, 127.0.0.1 and [::1]`;
  return `${uri}: the scheme ${u.protocol.slice(0, -1)} is not allowed (https, or http on a loopback host)`;
}

function isLoopbackHttp(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.protocol === "http:" && LOOPBACK_REDIRECT_HOSTS.has(u.hostname);
  } catch {
    return false;
  }
}

/** Exact match, or for a native client a loopback http address that differs only in its port. */
export function redirectMatches(client: ClientRecord, given: string): boolean {
  if (client.redirect_uris.includes(given)) return true;
  if (!client.native || !isLoopbackHttp(given) || given.includes("#")) return false;
  const g = new URL(given);
  return client.redirect_uris.some((r) => {
    if (!isLoopbackHttp(r)) return false;
    const u = new URL(r);
    return u.hostname === g.hostname && u.pathname === g.pathname && u.search === g.search && u.username === g.username && u.password === g.password;
  });
}

/** Public keys only: a key set with private members or a shared secret is refused. */
function jwksProblem(jwks: Jwks | undefined): string | undefined {
  if (!jwks) return undefined;
  for (const key of jwks.keys) {
    // A downloaded key set (`jwks_uri`) is not checked against the schema: any JSON may come.
    if (key === null || typeof key !== "object" || Array.isArray(key)) return "jwks: every key must be a JSON object";
    if (!["RSA", "EC", "OKP"].includes(String(key.kty))) return `jwks: key type ${String(key.kty)} is not an asymmetric public key`;
    if (["d", "p", "q", "dp", "dq", "qi", "k"].some((m) => m in key)) return "jwks: only public keys may be published (a private member is present)";
  }
  return undefined;
}

interface Metadata {
  redirect_uris: string[];
  client_name?: string;
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: "none" | "private_key_jwt";
  application_type?: "web" | "native";
  jwks?: Jwks;
  jwks_uri?: string;
}

/** Defaults applied: grant types filtered to the two supported, native when every address is loopback http. */
function recordOf(clientId: string, source: ClientRecord["source"], m: Metadata): ClientRecord | string {
  const grantTypes = (m.grant_types ?? [...GRANT_TYPES]).filter((g) => (GRANT_TYPES as readonly string[]).includes(g));
  if (!grantTypes.includes("authorization_code")) return "grant_types must include authorization_code (the only flow of this server)";
  const unique = [...new Set(grantTypes)];
  const allLoopback = m.redirect_uris.every(isLoopbackHttp);
  const applicationType = m.application_type ?? (allLoopback ? "native" : "web");
  const record: ClientRecord = {
    client_id: clientId,
    source,
    redirect_uris: [...m.redirect_uris],
    grant_types: unique,
    response_types: m.response_types ?? ["code"],
    token_endpoint_auth_method: m.token_endpoint_auth_method ?? "none",
    application_type: applicationType,
    native: applicationType === "native" || allLoopback,
  };
  if (m.client_name !== undefined) record.client_name = m.client_name;
  if (m.jwks !== undefined) record.jwks = m.jwks;
  if (m.jwks_uri !== undefined) record.jwks_uri = m.jwks_uri;
  return record;
}

// ---------------------------------------------------------------------------
// Dynamic registration

/** Takes one registration from a fixed window; answers the seconds to wait when full. */
export function takeRegistration(s: OAuthState, o: ResolvedOAuthOptions, ip: string, now: number): { ok: true } | { ok: false; retryAfter: number; scope: "ip" | "total"; limit: number } {
  const windowMs = o.registrationWindowSeconds * 1000;
  const fresh = (c: Counter | null | undefined): Counter => (!c || now >= c.start + windowMs ? { start: now, count: 0 } : c);
  const byIp = fresh(s.registrations.byIp.get(ip));
  const total = fresh(s.registrations.total);
  s.registrations.byIp.set(ip, byIp);
  s.registrations.total = total;
  const wait = (c: Counter) => Math.max(1, Math.ceil((c.start + windowMs - now) / 1000));
  if (byIp.count >= o.registrationPerIp) return { ok: false, retryAfter: wait(byIp), scope: "ip", limit: o.registrationPerIp };
  if (total.count >= o.registrationTotal) return { ok: false, retryAfter: wait(total), scope: "total", limit: o.registrationTotal };
  byIp.count++;
  total.count++;
  return { ok: true };
}

/** Registers a client from its metadata (a parsed JSON body): the client, or the failure naming what is wrong. */
export function registerClient(hub: HubBase, body: unknown): ClientRecord | Failure {
  const now = hub.clock.now();
  if (!body || typeof body !== "object" || Array.isArray(body)) return failure(400, "invalid_client_metadata", "The body must be a JSON object.");
  const uris = (body as Record<string, unknown>).redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) return failure(400, "invalid_redirect_uri", "redirect_uris must be a non-empty array of addresses.");
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return failure(400, "invalid_redirect_uri", problem);
  }
  const valid = schemaValidator("ClientRegistrationRequest");
  if (!valid(body)) {
    const details = toDetails(valid.errors);
    const secret = details.find((d) => d.field === "token_endpoint_auth_method");
    const text = secret
      ? "token_endpoint_auth_method must be none or private_key_jwt: no client secret is ever issued and shared-secret methods are refused."
      : details.map((d) => d.message).join("; ");
    return failure(400, "invalid_client_metadata", text);
  }
  const m = body as Metadata;
  const keys = jwksProblem(m.jwks);
  if (keys) return failure(400, "invalid_client_metadata", keys);
  const clientId = hub.ids.next("cli_", now);
  const record = recordOf(clientId, "registered", m);
  if (typeof record === "string") return failure(400, "invalid_client_metadata", record);
  record.client_id_issued_at = Math.floor(now / 1000);
  hub.state.oauth.clients.set(clientId, record);
  return record;
}

export function registrationReply(c: ClientRecord): Record<string, unknown> {
  const reply: Record<string, unknown> = {
    client_id: c.client_id,
    client_id_issued_at: c.client_id_issued_at,
    redirect_uris: c.redirect_uris,
    grant_types: c.grant_types,
    response_types: c.response_types,
    token_endpoint_auth_method: c.token_endpoint_auth_method,
    application_type: c.application_type,
  };
  if (c.client_name !== undefined) reply.client_name = c.client_name;
  if (c.jwks !== undefined) reply.jwks = c.jwks;
  if (c.jwks_uri !== undefined) reply.jwks_uri = c.jwks_uri;
  return reply;
}

// ---------------------------------------------------------------------------
// Client ID metadata documents

/** Loopback, private, link-local, shared and unspecified addresses are not public. */
function internalHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (v4) {
    const a = Number(v4[1]);
    const b = Number(v4[2]);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (host.startsWith("[")) return /^\[(::1?\]|::ffff:|f[cd]|fe[89ab])/i.test(host);
  return false;
}

/** Why an address cannot be a client ID metadata document's, or undefined. */
export function documentAddressProblem(raw: string): string | undefined {
  if (!raw.startsWith("https://")) return "a client ID metadata document must be served over https";
  if (raw.includes("#")) return "the client_id address must not have a fragment";
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "the client_id is not an address";
  }
  if (u.username || u.password) return "the client_id address must not carry user information";
  const rest = raw.slice("https://".length);
  const slash = rest.indexOf("/");
  const path = slash < 0 ? "" : rest.slice(slash).split("?")[0]!;
  if (path === "" || path === "/") return "the client_id address must have a path";
  if (path.split("/").some((seg) => seg === "." || seg === ".." || /^(%2e|\.){1,2}$/i.test(seg))) return "the client_id address must not contain . or .. segments";
  const host = u.hostname.toLowerCase();
  if (internalHost(host)) {
    return `the host ${host} is not a public address (loopback and internal hosts are refused)`;
  }
  return undefined;
}

/**
 * How long a downloaded document is kept: `Cache-Control: max-age`, else `Expires` (an HTTP
 * date on the simulated clock; one that does not parse means already expired, as in
 * RFC 9111), else the default; always within the bounds.
 */
function cacheSeconds(published: Published, now: number, o: ResolvedOAuthOptions): number {
  const m = published.cache_control ? /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(published.cache_control) : null;
  const expires = published.expires === null ? undefined : Date.parse(published.expires);
  const asked = m ? Number(m[1]) : expires === undefined ? o.documentCacheDefaultSeconds : Number.isNaN(expires) ? 0 : (expires - now) / 1000;
  return Math.min(o.documentCacheMaxSeconds, Math.max(o.documentCacheMinSeconds, asked));
}

/** Reads a published https resource the way a download would see it: 200 directly, JSON, size-limited. */
function download(s: OAuthState, url: string): { json: Record<string, unknown>; published: Published } | string {
  const published = s.documents.get(url);
  if (!published) return `${url} could not be downloaded: the simulator does not reach the network (publish the document with PUT /_sim/oauth/documents)`;
  if (published.status >= 300 && published.status < 400) return `${url} answered ${published.status}: redirects are not followed`;
  if (published.status !== 200) return `${url} answered ${published.status}, not 200`;
  if (new TextEncoder().encode(published.body).length > DOCUMENT_MAX_BYTES) return `${url} is larger than ${DOCUMENT_MAX_BYTES} bytes`;
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(published.content_type)) return `${url} is not served as JSON`;
  let value: unknown;
  try {
    value = JSON.parse(published.body);
  } catch {
    return `${url} is not valid JSON`;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return `${url} is not a JSON object`;
  return { json: value as Record<string, unknown>, published };
}

/** The client a metadata document describes (from the cache while it is fresh), or why there is none. */
export function documentClient(s: OAuthState, o: ResolvedOAuthOptions, url: string, now: number): ClientRecord | string {
  const cached = s.clients.get(url);
  if (cached && cached.source === "document" && (cached.cached_until ?? 0) > now) return cached;
  const address = documentAddressProblem(url);
  if (address) return address;
  const got = download(s, url);
  if (typeof got === "string") return got;
  const doc = got.json;
  if ("client_secret" in doc || "client_secret_expires_at" in doc) return "the document must not contain client_secret or client_secret_expires_at";
  if (doc.client_id !== url) return `the document's client_id must be its own address, byte for byte (${url})`;
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) return "the document needs redirect_uris";
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return problem;
  }
  const valid = schemaValidator("ClientMetadataDocument");
  if (!valid(doc)) return `the document is not valid: ${toDetails(valid.errors).map((d) => d.message).join("; ")}`;
  const keys = jwksProblem(doc.jwks as Jwks | undefined);
  if (keys) return keys;
  const record = recordOf(url, "document", doc as unknown as Metadata);
  if (typeof record === "string") return record;
  record.cached_until = now + cacheSeconds(got.published, now, o) * 1000;
  s.clients.set(url, record);
  return record;
}

/** A registered client, or the client of a metadata document address. */
export function findClient(s: OAuthState, o: ResolvedOAuthOptions, clientId: string, now: number): ClientRecord | string {
  if (clientId.startsWith("https://")) return documentClient(s, o, clientId, now);
  const c = s.clients.get(clientId);
  return c && c.source === "registered" ? c : `${clientId} is not a registered client_id nor the https address of a client ID metadata document`;
}

/** The client's public keys: its `jwks`, or the published document at its `jwks_uri`. */
export function clientKeys(s: OAuthState, client: ClientRecord): Jwks | string {
  if (client.jwks) return client.jwks;
  if (!client.jwks_uri) return "the client has no jwks or jwks_uri";
  const got = download(s, client.jwks_uri);
  if (typeof got === "string") return got;
  const keys = got.json.keys;
  if (!Array.isArray(keys)) return `${client.jwks_uri} is not a JSON Web Key Set`;
  const jwks = { keys } as Jwks;
  return jwksProblem(jwks) ?? jwks;
}
