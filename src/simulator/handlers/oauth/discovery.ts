// The two discovery documents (RFC 8414, RFC 9728), both on the address the caller used.
import { scopes as vocabulary } from "../../../contract/tables.ts";
import { json, type Ctx } from "../../pipeline/context.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";

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
