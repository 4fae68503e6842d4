// The authorization server's routes by operationId: discovery, the authorization request,
// the token route, revocation and registration.
import type { Handler } from "../../pipeline/context.ts";
import { authorize } from "./authorize.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./discovery.ts";
import { registerClientRoute } from "./register.ts";
import { exchangeToken, revokeTokenRoute } from "./token.ts";

export { consentMount } from "./authorize.ts";

export const oauthHandlers: Record<string, Handler> = {
  readAuthorizationServerMetadata: authorizationServerMetadata,
  readProtectedResourceMetadata: protectedResourceMetadata,
  authorize,
  exchangeToken,
  revokeToken: revokeTokenRoute,
  registerClient: registerClientRoute,
};
