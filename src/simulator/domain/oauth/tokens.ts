// The token route's rules (POST /oauth/token: code exchange and refresh) and revocation
// (POST /oauth/revoke, RFC 7009): who the client is (`none` clients send `client_id`;
// `private_key_jwt` clients a client assertion verified with jose against the client's
// keys: `iss` and `sub` the client_id, `aud` the route or the base address, `exp` and a
// `jti` never seen before), and what each grant type gives. Shared-secret methods are
// refused. Results are data (a token reply or a failure in the OAuth error form);
// handlers/oauth/token.ts reads the form and answers.
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import type { HubBase } from "../../state/base.ts";
import type { AccessToken, ClientRecord, Grant, RefreshToken, ResolvedOAuthOptions } from "../../state/oauth.ts";
import { randomToken } from "../../state/util.ts";
import { clientKeys, findClient } from "./clients.ts";
import { failure, type Failure } from "./failure.ts";
import { revokeGrant } from "./grants.ts";

export const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** Asymmetric signatures only: a client never shares a secret with this server. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
/** Client assertions are signed on the client's clock: checked against real time, with this tolerance. */
const ASSERTION_LEEWAY_SECONDS = 30;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The reply of a code exchange or a refresh (TokenReply). */
export type TokenReply = Record<string, unknown>;

/** BASE64URL(SHA256(verifier)), or "" for a verifier of the wrong shape. */
export async function s256(verifier: string): Promise<string> {
  if (!VERIFIER.test(verifier)) return "";
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  let bin = "";
  for (const b of digest) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A client secret in the form or Basic authentication: refused, no secret is ever issued. */
export function refusedSecret(form: Record<string, string>, authorization: string | undefined): Failure | undefined {
  if ("client_secret" in form || /^basic\s/i.test(authorization ?? "")) {
    return failure(401, "invalid_client", "Shared-secret client authentication is refused: no client secret is ever issued (use none or private_key_jwt).");
  }
  return undefined;
}

/**
 * Who is calling: the client of `client_id` (`none`) or of a verified assertion
 * (`private_key_jwt`). `audiences` are the addresses the assertion may name. The jti
 * check and record run after the last await, in one step with the caller's state step.
 */
export async function authenticateClient(hub: HubBase, o: ResolvedOAuthOptions, form: Record<string, string>, audiences: string[]): Promise<ClientRecord | Failure> {
  const now = hub.clock.now();
  const assertion = form.client_assertion;
  if (assertion === undefined) {
    const client = findClient(hub.state.oauth, o, form.client_id ?? "", now);
    if (typeof client === "string") return failure(401, "invalid_client", `Client not found: ${client}.`);
    if (client.token_endpoint_auth_method !== "none") return failure(401, "invalid_client", "This client authenticates with private_key_jwt: send client_assertion_type and client_assertion.");
    return client;
  }
  if (form.client_assertion_type !== ASSERTION_TYPE) return failure(401, "invalid_client", `client_assertion_type must be ${ASSERTION_TYPE}.`);
  let claims: JWTPayload;
  try {
    claims = decodeJwt(assertion);
  } catch {
    return failure(401, "invalid_client", "client_assertion is not a JWT.");
  }
  const clientId = typeof claims.iss === "string" ? claims.iss : "";
  if (form.client_id !== undefined && form.client_id !== clientId) return failure(401, "invalid_client", "client_id and the assertion's iss differ.");
  const client = findClient(hub.state.oauth, o, clientId, now);
  if (typeof client === "string") return failure(401, "invalid_client", `Client not found: ${client}.`);
  if (client.token_endpoint_auth_method !== "private_key_jwt") return failure(401, "invalid_client", "This client is public (none): send client_id, not an assertion.");
  const keys = clientKeys(hub.state.oauth, client);
  if (typeof keys === "string") return failure(401, "invalid_client", `The client's keys cannot be read: ${keys}.`);
  let verified: JWTPayload;
  try {
    ({ payload: verified } = await jwtVerify(assertion, createLocalJWKSet(keys as never), {
      issuer: client.client_id,
      subject: client.client_id,
      audience: audiences,
      algorithms: ALGORITHMS,
      requiredClaims: ["exp", "jti"],
      clockTolerance: ASSERTION_LEEWAY_SECONDS,
    }));
  } catch (error) {
    return failure(401, "invalid_client", `The client assertion failed: ${(error as Error).message}.`);
  }
  // No await from here to the caller's state step: the jti check and record are atomic.
  const jtis = hub.state.oauth.jtis;
  const realNow = Date.now();
  for (const [k, exp] of jtis) if (exp < realNow - ASSERTION_LEEWAY_SECONDS * 1000) jtis.delete(k);
  const seen = `${client.client_id} ${String(verified.jti)}`;
  if (jtis.has(seen)) return failure(401, "invalid_client", "The client assertion was already used (jti).");
  jtis.set(seen, (verified.exp ?? 0) * 1000);
  return client;
}

/** `grant_type=authorization_code`: one code, its redirect address, its PKCE verifier (hashed already). */
export function exchangeCode(hub: HubBase, o: ResolvedOAuthOptions, client: ClientRecord, form: Record<string, string>, hashedVerifier: string, baseUrl: string): TokenReply | Failure {
  const s = hub.state.oauth;
  const now = hub.clock.now();
  const bad = (description: string) => failure(400, "invalid_grant", description);
  const code = s.codes.get(form.code!);
  if (!code || code.client_id !== client.client_id) return bad("The code is unknown or was issued to another client.");
  if (code.used) return bad("The code was already used.");
  if (code.expires_at <= now) return bad("The code expired.");
  if (form.redirect_uri !== code.redirect_uri) return bad("redirect_uri differs from the authorization request's.");
  if (hashedVerifier === "" || hashedVerifier !== code.code_challenge) return bad("code_verifier does not match the code_challenge.");
  const resource = `${baseUrl}/v1`;
  if (form.resource !== undefined && form.resource !== resource) return failure(400, "invalid_target", `resource must be ${resource}.`);
  const grant = s.grants.get(code.grant_id);
  if (!grant || grant.revoked_at !== null || grant.expires_at <= now) return bad("The grant of this code was revoked or expired.");
  code.used = true;
  return issue(hub, o, client, grant, code.scopes, code.scopes, code.resource);
}

/** `grant_type=refresh_token`: rotation, reuse detection, the parallel-refresh exception, narrowing. */
export function refreshTokens(hub: HubBase, o: ResolvedOAuthOptions, client: ClientRecord, form: Record<string, string>): TokenReply | Failure {
  const s = hub.state.oauth;
  const now = hub.clock.now();
  const bad = (description: string) => failure(400, "invalid_grant", description);
  const token = s.refresh.get(form.refresh_token!);
  if (!token || token.client_id !== client.client_id) return bad("The refresh token is unknown or belongs to another client.");
  const grant = s.grants.get(token.grant_id);
  if (!grant || grant.revoked_at !== null) return bad("The grant was revoked: sign in again.");
  if (grant.expires_at <= now) return bad("The grant reached its absolute lifetime: sign in again.");
  if (token.used_at !== null) {
    // A repeat right after an exchange is a parallel refresh: the loser is refused, the grant stays.
    if (now - token.used_at <= o.parallelRefreshSeconds * 1000) return bad("The refresh token was just exchanged by a parallel request; use the tokens that request received.");
    revokeGrant(hub, grant, "a used refresh token was presented again");
    return bad("The refresh token was already used: the grant is revoked. Sign in again.");
  }
  if (token.revoked) return bad("The refresh token was revoked.");
  if (token.expires_at <= now) return bad("The refresh token expired.");
  let scopes = token.scopes.filter((x) => grant.scopes.includes(x));
  if (form.scope !== undefined) {
    const asked = [...new Set(form.scope.split(" ").filter(Boolean))];
    const extra = asked.filter((x) => !scopes.includes(x));
    if (asked.length === 0 || extra.length > 0) return failure(400, "invalid_scope", `scope may only narrow what was granted (${scopes.join(" ")}).`);
    scopes = asked;
  }
  token.used_at = now;
  return issue(hub, o, client, grant, token.scopes, scopes, token.resource);
}

/** A new access token (and a new refresh token when the client has the refresh grant). */
function issue(hub: HubBase, o: ResolvedOAuthOptions, client: ClientRecord, grant: Grant, refreshScopes: string[], accessScopes: string[], resource: string): TokenReply {
  const s = hub.state.oauth;
  const now = hub.clock.now();
  const accessEnd = Math.min(now + o.accessTokenSeconds * 1000, grant.expires_at);
  const access: AccessToken = { token: `gho_${randomToken(40)}`, grant_id: grant.id, client_id: client.client_id, scopes: accessScopes, resource, expires_at: accessEnd, revoked: false };
  s.access.set(access.token, access);
  // A stream opened with this token ends when it expires (`terminated`, invalid_token).
  hub.watchExpiry(accessEnd);
  const reply: TokenReply = {
    access_token: access.token,
    token_type: "Bearer",
    expires_in: Math.max(0, Math.round((accessEnd - now) / 1000)),
  };
  if (client.grant_types.includes("refresh_token")) {
    const refresh: RefreshToken = {
      token: `ghr_${randomToken(40)}`,
      grant_id: grant.id,
      client_id: client.client_id,
      scopes: refreshScopes,
      resource,
      expires_at: Math.min(now + o.refreshTokenSeconds * 1000, grant.expires_at),
      used_at: null,
      revoked: false,
    };
    s.refresh.set(refresh.token, refresh);
    reply.refresh_token = refresh.token;
  }
  reply.scope = accessScopes.join(" ");
  return reply;
}

/** Revokes the token `value` of `client` (unknown tokens change nothing); the grant remains. */
export function revokeToken(hub: HubBase, client: ClientRecord, value: string): void {
  const s = hub.state.oauth;
  const refresh = s.refresh.get(value);
  if (refresh && refresh.client_id === client.client_id) {
    const grant = s.grants.get(refresh.grant_id);
    // A used refresh token presented again, here always, revokes the whole grant.
    if (refresh.used_at !== null && grant) revokeGrant(hub, grant, "a used refresh token was presented to revoke");
    else refresh.revoked = true;
  }
  const access = s.access.get(value);
  if (access && access.client_id === client.client_id && !access.revoked) {
    access.revoked = true;
    hub.recheckStreams();
  }
}
