// The protected resource side: the two discovery documents, and access tokens on /v1.
// A token is valid only on /v1 (the resolver is asked only there), only for its scopes
// (the pipeline's scope rung, with the scope named in WWW-Authenticate) and only for the
// resource `{base_url}/v1` it was issued for; otherwise 401 `invalid_token` with
// `error="invalid_token"`. The grant's id is the credential's key id (whoami `key_id`, the
// `default` rate window, streams per key) and its spend limit answers
// 402 `grant_spend_limit_reached` beside the keys' limit.
import { scopes as vocabulary } from "../../../contract/index.ts";
import { json, type Ctx } from "../../pipeline/context.ts";
import { resourceMetadataUrl, type Credential, type CredentialResolver } from "../credentials.ts";
import { refuse, type Refusal } from "../refusal.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import type { Hub } from "../../hub.ts";
import type { Grant, OAuthState } from "./store.ts";

export function authorizationServerMetadata(ctx: Ctx): SimResponse {
  const base = ctx.baseUrl;
  return json(ctx, 200, {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    registration_endpoint: `${base}/oauth/register`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["RS256", "PS256", "ES256", "EdDSA"],
    revocation_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    revocation_endpoint_auth_signing_alg_values_supported: ["RS256", "PS256", "ES256", "EdDSA"],
    scopes_supported: vocabulary,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  });
}

export function protectedResourceMetadata(ctx: Ctx): SimResponse {
  const base = ctx.baseUrl;
  return json(ctx, 200, {
    resource: `${base}/v1`,
    authorization_servers: [base],
    scopes_supported: vocabulary,
    bearer_methods_supported: ["header"],
    resource_name: "Generation Hub API (simulator)",
  });
}

/** What the grant has spent: set through the control interface, plus its generations' charges not refunded. */
export function grantSpent(hub: Hub, grant: Grant): number {
  let spent = grant.spent_base_cc;
  for (const g of hub.state.by_account.get(grant.account_id) ?? []) {
    if (g.key_id === grant.id && !g.refunded) spent += g.charged_cc;
  }
  return spent;
}

export function tokenResolver(hub: Hub, s: () => OAuthState): CredentialResolver {
  return {
    bearer(token, now, baseUrl): Credential | Refusal | undefined {
      const unusable = (why: string) =>
        refuse("invalid_token", {
          message: `The access token ${why}.`,
          headers: { "www-authenticate": `Bearer resource_metadata="${resourceMetadataUrl(baseUrl)}", error="invalid_token"` },
        });
      const state = s();
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
          const spent = grantSpent(hub, grant);
          if (spent >= grant.spend_limit_cc || spent + chargeCc > grant.spend_limit_cc) return refuse("grant_spend_limit_reached");
          return undefined;
        },
      };
    },
  };
}
