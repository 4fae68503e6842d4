// POST /oauth/token (code exchange and refresh) and POST /oauth/revoke (RFC 7009). Both
// authenticate the client: `none` clients send `client_id`; `private_key_jwt` clients a
// client assertion verified with jose against the client's keys (`iss` and `sub` the
// client_id, `aud` this route or the base address, `exp` and a `jti` never seen before).
// Shared-secret methods are refused. Assertions and PKCE use WebCrypto, so these routes
// answer asynchronously (a deferred answer); every check that reads or changes state runs
// after the last await, in one synchronous step, so parallel requests cannot interleave
// inside it (the parallel-refresh rule depends on that).
import { createLocalJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import { validateChosen } from "../../../contract/index.ts";
import { baseHeaders, headerOf, type Ctx } from "../../pipeline/context.ts";
import type { BodyAnswer, SimResponse } from "../../pipeline/exchange.ts";
import type { Hub } from "../../hub.ts";
import { randomToken } from "../../state/util.ts";
import { clientKeys, findClient, oauthError } from "./clients.ts";
import type { AccessToken, ClientRecord, Grant, OAuthState, RefreshToken, ResolvedOAuthOptions } from "./store.ts";

export const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/** Asymmetric signatures only: a client never shares a secret with this server. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "Ed25519"];
/** Client assertions are signed on the client's clock: checked against real time, with this tolerance. */
const ASSERTION_LEEWAY_SECONDS = 30;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

type Failure = { status: number; error: string; description: string };
const failure = (status: number, error: string, description: string): Failure => ({ status, error, description });

function isFailure(x: unknown): x is Failure {
  return typeof x === "object" && x !== null && "error" in x && "status" in x;
}

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  let bin = "";
  for (const b of digest) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The form body as single values; undefined when it is not a form or repeats a parameter. */
function readForm(ctx: Ctx): Record<string, string> | Failure {
  const type = (headerOf(ctx, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return failure(400, "invalid_request", "The body must be application/x-www-form-urlencoded.");
  let text = "";
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(ctx.req.body ?? new Uint8Array());
  } catch {
    return failure(400, "invalid_request", "The body is not valid UTF-8.");
  }
  const params = new URLSearchParams(text);
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    if (k in out) return failure(400, "invalid_request", `${k} is given more than once.`);
    out[k] = v;
  }
  return out;
}

export class TokenRoutes {
  constructor(
    readonly hub: Hub,
    readonly s: () => OAuthState,
    readonly o: ResolvedOAuthOptions,
  ) {}

  /** Runs an async answer, turning anything thrown into 500 in the OAuth form (never a stack). */
  #defer(ctx: Ctx, work: () => Promise<BodyAnswer>): SimResponse {
    return {
      deferred: work().catch((error: unknown) => {
        console.error(`simulator: ${ctx.req.method} ${ctx.path} failed (request ${ctx.requestId})`, error);
        return oauthError(ctx, 500, "server_error", "Unexpected server error.") as BodyAnswer;
      }),
    };
  }

  /**
   * Who is calling: the client of `client_id` (`none`) or of a verified assertion
   * (`private_key_jwt`). `audiences` are the addresses the assertion may name.
   */
  async #client(ctx: Ctx, form: Record<string, string>, audiences: string[]): Promise<ClientRecord | Failure> {
    const s = this.s();
    const now = this.hub.clock.now();
    const assertion = form.client_assertion;
    if (assertion === undefined) {
      const client = findClient(s, this.o, form.client_id ?? "", now);
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
    const client = findClient(s, this.o, clientId, now);
    if (typeof client === "string") return failure(401, "invalid_client", `Client not found: ${client}.`);
    if (client.token_endpoint_auth_method !== "private_key_jwt") return failure(401, "invalid_client", "This client is public (none): send client_id, not an assertion.");
    const keys = clientKeys(s, client);
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
    const jtis = this.s().jtis;
    const realNow = Date.now();
    for (const [k, exp] of jtis) if (exp < realNow - ASSERTION_LEEWAY_SECONDS * 1000) jtis.delete(k);
    const seen = `${client.client_id} ${String(verified.jti)}`;
    if (jtis.has(seen)) return failure(401, "invalid_client", "The client assertion was already used (jti).");
    jtis.set(seen, (verified.exp ?? 0) * 1000);
    return client;
  }

  #refusedSecret(ctx: Ctx, form: Record<string, string>): Failure | undefined {
    const auth = headerOf(ctx, "authorization") ?? "";
    if ("client_secret" in form || /^basic\s/i.test(auth)) {
      return failure(401, "invalid_client", "Shared-secret client authentication is refused: no client secret is ever issued (use none or private_key_jwt).");
    }
    return undefined;
  }

  // -------------------------------------------------------------------------
  // POST /oauth/token

  token(ctx: Ctx): SimResponse {
    return this.#defer(ctx, async () => {
      const answer = (f: Failure) => oauthError(ctx, f.status, f.error, f.description) as BodyAnswer;
      const form = readForm(ctx);
      if (isFailure(form)) return answer(form);
      const secret = this.#refusedSecret(ctx, form);
      if (secret) return answer(secret);
      const grantType = form.grant_type;
      if (grantType === undefined) return answer(failure(400, "invalid_request", "grant_type is required."));
      if (grantType !== "authorization_code" && grantType !== "refresh_token") {
        return answer(failure(400, "unsupported_grant_type", `grant_type ${grantType} is not supported: authorization_code or refresh_token.`));
      }
      const details = validateChosen("TokenRequest", form);
      if (details.length > 0) return answer(failure(400, "invalid_request", details.map((d) => d.message).join("; ")));
      const base = ctx.baseUrl;
      const client = await this.#client(ctx, form, [`${base}/oauth/token`, base]);
      if (isFailure(client)) return answer(client);
      if (grantType === "authorization_code") {
        const verifierOk = VERIFIER.test(form.code_verifier!);
        const hashed = verifierOk ? await s256(form.code_verifier!) : "";
        // The state step: no await below.
        return this.#exchangeCode(ctx, client, form, hashed);
      }
      return this.#refresh(ctx, client, form);
    });
  }

  #exchangeCode(ctx: Ctx, client: ClientRecord, form: Record<string, string>, hashedVerifier: string): BodyAnswer {
    const s = this.s();
    const now = this.hub.clock.now();
    const bad = (description: string) => oauthError(ctx, 400, "invalid_grant", description) as BodyAnswer;
    const code = s.codes.get(form.code!);
    if (!code || code.client_id !== client.client_id) return bad("The code is unknown or was issued to another client.");
    if (code.used) return bad("The code was already used.");
    if (code.expires_at <= now) return bad("The code expired.");
    if (form.redirect_uri !== code.redirect_uri) return bad("redirect_uri differs from the authorization request's.");
    if (hashedVerifier === "" || hashedVerifier !== code.code_challenge) return bad("code_verifier does not match the code_challenge.");
    const resource = `${ctx.baseUrl}/v1`;
    if (form.resource !== undefined && form.resource !== resource) return oauthError(ctx, 400, "invalid_target", `resource must be ${resource}.`) as BodyAnswer;
    const grant = s.grants.get(code.grant_id);
    if (!grant || grant.revoked_at !== null || grant.expires_at <= now) return bad("The grant of this code was revoked or expired.");
    code.used = true;
    return this.#issue(ctx, client, grant, code.scopes, code.scopes, code.resource);
  }

  #refresh(ctx: Ctx, client: ClientRecord, form: Record<string, string>): BodyAnswer {
    const s = this.s();
    const now = this.hub.clock.now();
    const bad = (description: string) => oauthError(ctx, 400, "invalid_grant", description) as BodyAnswer;
    const token = s.refresh.get(form.refresh_token!);
    if (!token || token.client_id !== client.client_id) return bad("The refresh token is unknown or belongs to another client.");
    const grant = s.grants.get(token.grant_id);
    if (!grant || grant.revoked_at !== null) return bad("The grant was revoked: sign in again.");
    if (grant.expires_at <= now) return bad("The grant reached its absolute lifetime: sign in again.");
    if (token.used_at !== null) {
      // A repeat right after an exchange is a parallel refresh: the loser is refused, the grant stays.
      if (now - token.used_at <= this.o.parallelRefreshSeconds * 1000) return bad("The refresh token was just exchanged by a parallel request; use the tokens that request received.");
      this.revokeGrant(grant, "a used refresh token was presented again");
      return bad("The refresh token was already used: the grant is revoked. Sign in again.");
    }
    if (token.revoked) return bad("The refresh token was revoked.");
    if (token.expires_at <= now) return bad("The refresh token expired.");
    let scopes = token.scopes.filter((x) => grant.scopes.includes(x));
    if (form.scope !== undefined) {
      const asked = [...new Set(form.scope.split(" ").filter(Boolean))];
      const extra = asked.filter((x) => !scopes.includes(x));
      if (asked.length === 0 || extra.length > 0) return oauthError(ctx, 400, "invalid_scope", `scope may only narrow what was granted (${scopes.join(" ")}).`) as BodyAnswer;
      scopes = asked;
    }
    token.used_at = now;
    return this.#issue(ctx, client, grant, token.scopes, scopes, token.resource);
  }

  /** A new access token (and a new refresh token when the client has the refresh grant). */
  #issue(ctx: Ctx, client: ClientRecord, grant: Grant, refreshScopes: string[], accessScopes: string[], resource: string): BodyAnswer {
    const s = this.s();
    const now = this.hub.clock.now();
    const accessEnd = Math.min(now + this.o.accessTokenSeconds * 1000, grant.expires_at);
    const access: AccessToken = { token: `gho_${randomToken(40)}`, grant_id: grant.id, client_id: client.client_id, scopes: accessScopes, resource, expires_at: accessEnd, revoked: false };
    s.access.set(access.token, access);
    // A stream opened with this token ends when it expires (`terminated`, invalid_token).
    this.hub.watchExpiry(accessEnd);
    const reply: Record<string, unknown> = {
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
        expires_at: Math.min(now + this.o.refreshTokenSeconds * 1000, grant.expires_at),
        used_at: null,
        revoked: false,
      };
      s.refresh.set(refresh.token, refresh);
      reply.refresh_token = refresh.token;
    }
    reply.scope = accessScopes.join(" ");
    const headers = baseHeaders(ctx);
    headers["content-type"] = "application/json; charset=utf-8";
    headers["cache-control"] = "no-store";
    headers.pragma = "no-cache";
    return { status: 200, headers, body: JSON.stringify(reply) };
  }

  /** The whole grant ends with all its tokens; open streams get `terminated` (invalid_token). */
  revokeGrant(grant: Grant, reason: string): void {
    if (grant.revoked_at !== null) return;
    grant.revoked_at = this.hub.clock.now();
    grant.revoked_reason = reason;
    this.hub.recheckStreams();
  }

  // -------------------------------------------------------------------------
  // POST /oauth/revoke

  // The contract gives revoke no 400: a request whose client cannot be identified (not
  // a form, a parameter twice, no client_id or assertion) answers 401 invalid_client, and
  // a missing token is an unknown one (200), as RFC 7009 answers an invalid token.
  revoke(ctx: Ctx): SimResponse {
    return this.#defer(ctx, async () => {
      const answer = (f: Failure) => oauthError(ctx, f.status, f.error, f.description) as BodyAnswer;
      const form = readForm(ctx);
      if (isFailure(form)) return answer(failure(401, "invalid_client", `The client cannot be identified: ${form.description}`));
      const secret = this.#refusedSecret(ctx, form);
      if (secret) return answer(secret);
      if (form.client_id === undefined && form.client_assertion === undefined) {
        return answer(failure(401, "invalid_client", "The client must identify itself: client_id (none) or client_assertion_type with client_assertion (private_key_jwt)."));
      }
      const base = ctx.baseUrl;
      const client = await this.#client(ctx, form, [`${base}/oauth/revoke`, `${base}/oauth/token`, base]);
      if (isFailure(client)) return answer(client);
      // RFC 7009 section 2.2.1: a request without the token is malformed (an unknown token is not).
      if (!form.token) return answer(failure(400, "invalid_request", "The request has no token to revoke."));
      // The state step: no await below.
      const s = this.s();
      const value = form.token;
      const refresh = s.refresh.get(value);
      if (refresh && refresh.client_id === client.client_id) {
        const grant = s.grants.get(refresh.grant_id);
        // A used refresh token presented again, here always, revokes the whole grant.
        if (refresh.used_at !== null && grant) this.revokeGrant(grant, "a used refresh token was presented to revoke");
        else refresh.revoked = true;
      }
      const access = s.access.get(value);
      if (access && access.client_id === client.client_id && !access.revoked) {
        access.revoked = true;
        this.hub.recheckStreams();
      }
      const headers = baseHeaders(ctx);
      headers["cache-control"] = "no-store";
      return { status: 200, headers, body: "" };
    });
  }
}
