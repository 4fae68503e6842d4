// OAuth grants: a consent makes the client's one active grant (a new consent revokes the
// previous grant with its tokens), a code is issued for it, and access tokens on /v1 are
// checked against it. A token is valid only on /v1 (the resolver is asked only there),
// only for its scopes (the pipeline's scope rung names the scope in WWW-Authenticate) and
// only for the resource `{base_url}/v1` it was issued for; otherwise 401 `invalid_token`
// with `error="invalid_token"`. The grant's id is the credential's key id (whoami
// `key_id`, the `default` rate window, streams per key) and its spend limit answers
// 402 `grant_spend_limit_reached` beside the keys' limit.
import type { HubBase } from "../../state/base.ts";
import type { Generation } from "../../state/generations.ts";
import type { HubState } from "../../state/hub-state.ts";
import type { Code, Grant, OAuthState, ResolvedOAuthOptions } from "../../state/oauth.ts";
import { randomToken } from "../../state/util.ts";
import { resourceMetadataUrl, type Credential, type CredentialResolver } from "../credentials.ts";
import { refuse, type Refusal } from "../refusal.ts";

export function activeGrant(s: OAuthState, accountId: string, clientId: string, now: number): Grant | undefined {
  for (const g of s.grants.values()) {
    if (g.account_id === accountId && g.client_id === clientId && g.revoked_at === null && g.expires_at > now) return g;
  }
  return undefined;
}

/** A new consent: the client's one active grant; its previous grant ends with its tokens. */
export function newGrant(hub: HubBase, o: ResolvedOAuthOptions, accountId: string, clientId: string, scopes: string[]): Grant {
  const now = hub.clock.now();
  const s = hub.state.oauth;
  let revoked = false;
  for (const g of s.grants.values()) {
    if (g.account_id === accountId && g.client_id === clientId && g.revoked_at === null) {
      g.revoked_at = now;
      g.revoked_reason = "replaced by a new consent";
      revoked = true;
    }
  }
  const grant: Grant = {
    id: hub.ids.next("grt_", now),
    client_id: clientId,
    account_id: accountId,
    scopes,
    created_at: now,
    expires_at: now + o.grantSeconds * 1000,
    revoked_at: null,
    revoked_reason: null,
    spend_limit_cc: null,
    spent_base_cc: 0,
  };
  s.grants.set(grant.id, grant);
  if (revoked) hub.recheckStreams();
  return grant;
}

/** What a code is issued for: the authorization request's client, return address, PKCE challenge and resource. */
export interface CodeRequest {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
}

/** A one-time code for a grant: what the application exchanges at the token route. */
export function makeCode(hub: HubBase, o: ResolvedOAuthOptions, p: CodeRequest, grant: Grant, scopes: string[]): Code {
  const code: Code = {
    code: `ghc_${randomToken(32)}`,
    client_id: p.client_id,
    grant_id: grant.id,
    redirect_uri: p.redirect_uri,
    scopes,
    code_challenge: p.code_challenge,
    resource: p.resource,
    expires_at: hub.clock.now() + o.codeSeconds * 1000,
    used: false,
  };
  hub.state.oauth.codes.set(code.code, code);
  return code;
}

/** The whole grant ends with all its tokens; open streams get `terminated` (invalid_token). */
export function revokeGrant(hub: HubBase, grant: Grant, reason: string): void {
  if (grant.revoked_at !== null) return;
  grant.revoked_at = hub.clock.now();
  grant.revoked_reason = reason;
  hub.recheckStreams();
}

/** What the grant has spent: set through the control interface, plus its generations' charges not refunded. */
export function grantSpent(state: HubState, grant: Grant): number {
  let spent = grant.spent_base_cc;
  for (const g of state.by_account.get(grant.account_id) ?? []) {
    if (g.key_id === grant.id && !g.refunded) spent += g.charged_cc;
  }
  return spent;
}

/** A generation dropped by retention: what it spent of its grant stays spent. */
export function keepGrantSpend(state: HubState, gen: Generation): void {
  const grant = state.oauth.grants.get(gen.key_id);
  if (grant && !gen.refunded) grant.spent_base_cc += gen.charged_cc;
}

/** Access tokens (`gho_…`) on /v1. */
export function tokenResolver(hub: HubBase): CredentialResolver {
  return {
    bearer(token, now, baseUrl): Credential | Refusal | undefined {
      const unusable = (why: string) =>
        refuse("invalid_token", {
          message: `The access token ${why}.`,
          headers: { "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl(baseUrl)}", error="invalid_token"` },
        });
      const state = hub.state.oauth;
      const t = state.access.get(token);
      if (!t) return unusable("is unknown");
      if (t.revoked) return unusable("was revoked");
      if (t.expires_at <= now) return unusable("expired");
      const grant = state.grants.get(t.grant_id);
      if (!grant || grant.revoked_at !== null) return unusable("belongs to a revoked grant");
      if (grant.expires_at <= now) return unusable("belongs to an expired grant");
      if (baseUrl && t.resource !== `${baseUrl}/v1`) return unusable(`was issued for another resource (${t.resource})`);
      return {
        channel: "oauth",
        keyId: grant.id,
        accountId: grant.account_id,
        scopes: t.scopes.filter((x) => grant.scopes.includes(x)),
        spendRefusal(chargeCc) {
          if (grant.spend_limit_cc === null) return undefined;
          const spent = grantSpent(hub.state, grant);
          if (spent >= grant.spend_limit_cc || spent + chargeCc > grant.spend_limit_cc) return refuse("grant_spend_limit_reached");
          return undefined;
        },
      };
    },
  };
}
