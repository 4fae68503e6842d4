import { discover } from "@generation-hub/api/oauth";

// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
// The resource tokens are for ({base_url}/v1), its authorization servers and scopes.
console.log(server.resourceId, server.resource.authorization_servers, server.resource.scopes_supported);
