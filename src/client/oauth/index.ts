// OAuth for applications (entry point `@generation-hub/api/oauth`): discovery, a
// client_id (metadata document or registration), PKCE authorization, code exchange,
// revocation, and a token store whose `provider()` plugs into `createHubClient({ token })`.
export {
  authorizationUrl,
  clientMetadataDocument,
  discover,
  documentClient,
  exchangeCode,
  register,
  revoke,
  toTokenSet,
  type AuthorizationRequest,
  type HubOAuthClient,
  type HubOAuthServer,
  type OAuthFetch,
  type OAuthHttpOptions,
  type TokenSet,
} from "./flow.ts";
export { ClientMetadataError } from "./metadata.ts";
export { memoryStorage, OAuthGrantError, TokenStore, type TokenStorage, type TokenStoreOptions } from "./token-store.ts";
