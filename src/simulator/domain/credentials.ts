// Credentials and the refusal ladder, in the seed's order: API disabled, no credential,
// malformed or unknown key, expired, revoked, unusable OAuth token, no API access,
// suspended, terms not accepted, missing scope. The rate limiter sits between the
// credential rungs and the account rungs (see the pipeline).
import type { Operation } from "../../contract/document.ts";
import { refuse, type Refusal } from "./refusal.ts";
import { KEY_PATTERN, type Account, type ApiKey } from "../state/accounts.ts";
import type { HubState } from "../state/hub-state.ts";

export interface Credential {
  channel: "api_key" | "oauth" | "session";
  /** Key id, or the grant id for an OAuth token. */
  keyId: string;
  accountId: string;
  scopes: readonly string[];
  key?: ApiKey;
  /**
   * A check of the channel that runs before the rate limiter, so its refusal carries no
   * RateLimit pair (the session cookie's Origin allowlist: 403 `origin_mismatch`).
   */
  admit?(method: string, origin: string | undefined, baseUrl: string): Refusal | undefined;
  /** One window instead of the key and account pair (the session cookie's account-owned window). */
  window?: { counter: string; policy: "default" | "account"; quota: number };
  /** A spend limit of the credential besides the key's (an OAuth grant's: 402 `grant_spend_limit_reached`). */
  spendRefusal?(chargeCc: number): Refusal | undefined;
}

/**
 * OAuth access tokens and the site session cookie plug in here. `bearer`
 * answers undefined for a token it does not recognise as its own.
 */
export interface CredentialResolver {
  /** `baseUrl` is the address the request came in on ("" when unknown): tokens are bound to `{base_url}/v1`. */
  bearer?(token: string, now: number, baseUrl: string): Credential | Refusal | undefined;
  cookie?(cookieHeader: string, now: number): Credential | undefined;
}

/** OAuth access tokens are opaque; this prefix tells the simulator which table to read. */
export const TOKEN_PREFIX = "gho_";

export function resourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/v1`;
}

function unauthorized(code: string, baseUrl: string, presented: boolean): Refusal {
  const challenge = `Bearer resource_metadata="${resourceMetadataUrl(baseUrl)}"` + (presented ? `, error="invalid_token"` : "");
  return refuse(code, { headers: { "www-authenticate": challenge } });
}

const BEARER = "bearer";

/**
 * The token of `Bearer <token>` (the scheme in any case, one or more spaces before the
 * token, spaces after it): what /^Bearer[ ]+([^ ]+)[ ]*$/i reads, without a match array
 * on every request.
 */
export function bearerToken(header: string): string | undefined {
  const n = header.length;
  for (let i = 0; i < 6; i++) if (i >= n || (header.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return undefined;
  let i = 6;
  if (header.charCodeAt(i) !== 32) return undefined;
  while (i < n && header.charCodeAt(i) === 32) i++;
  const start = i;
  while (i < n && header.charCodeAt(i) !== 32) i++;
  if (i === start) return undefined;
  const end = i;
  while (i < n && header.charCodeAt(i) === 32) i++;
  return i === n ? header.slice(start, end) : undefined;
}

export function authenticate(
  state: HubState,
  resolvers: readonly CredentialResolver[],
  authorization: string | undefined,
  cookie: string | undefined,
  now: number,
  baseUrl: string,
): Credential | Refusal {
  if (authorization === undefined || authorization.trim() === "") {
    for (const r of resolvers) {
      const found = cookie && r.cookie?.(cookie, now);
      if (found) return found;
    }
    return unauthorized("unauthorized", baseUrl, false);
  }
  const token = bearerToken(authorization);
  if (token === undefined) return unauthorized("invalid_api_key", baseUrl, true);
  if (token.startsWith(TOKEN_PREFIX)) {
    for (const r of resolvers) {
      const found = r.bearer?.(token, now, baseUrl);
      if (found) return found;
    }
    return unauthorized("invalid_token", baseUrl, true);
  }
  if (!KEY_PATTERN.test(token)) return unauthorized("invalid_api_key", baseUrl, true);
  const key = state.keys.get(token);
  if (!key) return unauthorized("invalid_api_key", baseUrl, true);
  if (key.expires_at !== null && key.expires_at <= now) return unauthorized("api_key_expired", baseUrl, true);
  if (key.revoked) return unauthorized("api_key_revoked", baseUrl, true);
  return { channel: "api_key", keyId: key.id, accountId: key.account_id, scopes: key.scopes, key };
}

/** The account rungs: no API access, suspended, terms not accepted. */
export function accountRefusal(account: Account | undefined): Refusal | undefined {
  if (!account || !account.api_access) return refuse("api_access_not_granted");
  if (account.suspended) return refuse("account_suspended");
  if (!account.terms_accepted) return refuse("legal_consent_required");
  return undefined;
}

/**
 * Scopes the seed leaves unnamed (whoami, me, the title change) are the simulator's
 * decision, documented in docs/simulator.md.
 */
export const SIMULATOR_SCOPES: Readonly<Record<string, string | null>> = {
  readWhoami: null,
  readAccount: "me:read",
  changeGenerationTitle: "generations:write",
};

export function requiredScope(operation: Operation): string | null {
  if (operation.operationId in SIMULATOR_SCOPES) return SIMULATOR_SCOPES[operation.operationId]!;
  return operation.scope;
}

/** The last rung: the channel must be allowed on the route and the scope held. */
export function scopeRefusal(credential: Credential, operation: Operation, baseUrl: string): Refusal | undefined {
  const allowed = operation.schemes.includes(credential.channel === "api_key" ? "api_key" : credential.channel === "oauth" ? "oauth2" : "session_cookie");
  const scope = requiredScope(operation);
  if (!allowed) return refuse("insufficient_scope", { message: "This route is not available to this kind of credential." });
  if (scope && credential.channel !== "session" && !credential.scopes.includes(scope)) {
    const headers: Record<string, string> = {};
    if (credential.channel === "oauth") headers["www-authenticate"] = `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(baseUrl)}"`;
    return refuse("insufficient_scope", { message: `The credential lacks the scope ${scope}.`, headers });
  }
  return undefined;
}
