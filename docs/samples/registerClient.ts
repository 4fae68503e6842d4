import { discover, register } from "@generation-hub/api/oauth";

// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
// Dynamic registration (RFC 7591): no client secret is ever issued.
const { client } = await register(server, {
  redirect_uris: ["http://127.0.0.1:8765/callback"],
  client_name: "Studio CLI",
  application_type: "native",
});
console.log(client.client_id);
