import { clientMetadataDocument } from "@generation-hub/api/oauth";

// Publish this JSON at its own client_id address (https); the hub fetches it on first use.
const document = clientMetadataDocument({
  client_id: "https://studio.example/oauth/client.json",
  client_name: "Studio",
  redirect_uris: ["https://studio.example/oauth/callback"],
});
console.log(JSON.stringify(document));
