import { clientMetadataDocument } from "@generation-hub/api/oauth";

// Publish this JSON at its own client_id address (https); the hub fetches it on first use.
const document = clientMetadataDocument({
  client_id: "https://studio.example/oauth/client.json",
  client_name: "Studio",
  redirect_uris: ["https://studio.example/oauth/callback"],
  grant_types: ["authorization_code", "refresh_token"], // without refresh_token, no refresh token is issued
});
console.log(JSON.stringify(document));
