import { createHubClient } from "@generation-hub/api";
import { authorizationUrl, discover, documentClient, exchangeCode, TokenStore, type AuthorizationRequest } from "@generation-hub/api/oauth";

// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
const client = documentClient({
  client_id: "https://studio.example/oauth/client.json",
  redirect_uris: ["https://studio.example/oauth/callback"],
});
// Before: the user was sent to request.url (see GET /oauth/authorize).
export const request: AuthorizationRequest = await authorizationUrl(server, client, {
  redirectUri: "https://studio.example/oauth/callback",
  scope: ["generations:read"],
});

/** At redirect_uri: the address the browser came back to (with code, state and iss). */
export async function onCallback(callbackUrl: string) {
  // Checks state and iss, then sends the code, redirect_uri and the PKCE verifier.
  const tokens = await exchangeCode(server, client, request, callbackUrl);
  console.log("granted:", tokens.scope); // what the user really granted

  // The store refreshes for the client: one refresh at a time, rotated refresh tokens saved.
  const store = new TokenStore(server, client);
  await store.set(tokens);
  const hub = createHubClient({ baseUrl: "https://hub.example", token: store.provider() });
  const { data: whoami } = await hub.GET("/v1/whoami");
  console.log(whoami.channel); // "oauth"
}
