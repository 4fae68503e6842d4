import { discover, documentClient, revoke } from "@generation-hub/api/oauth";

// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
const client = documentClient({
  client_id: "https://studio.example/oauth/client.json",
  redirect_uris: ["https://studio.example/oauth/callback"],
});
// Revokes only this token; 200 also for an unknown or already revoked one. The grant remains.
await revoke(server, client, process.env.REFRESH_TOKEN!, "refresh_token");
console.log("refresh token revoked");
