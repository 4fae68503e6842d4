import { authorizationUrl, discover, documentClient } from "@generation-hub/api/oauth";

// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
const client = documentClient({
  client_id: "https://studio.example/oauth/client.json",
  redirect_uris: ["https://studio.example/oauth/callback"],
});
// PKCE (S256), state and resource; keep `request` until the browser comes back.
const request = await authorizationUrl(server, client, {
  redirectUri: "https://studio.example/oauth/callback",
  scope: ["generations:read", "generations:write"],
});
console.log("send the user's browser to", request.url.href);
