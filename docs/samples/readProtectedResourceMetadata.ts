import { discover } from "@generation-hub/api/oauth";

const server = await discover("https://hub.example");
// The resource tokens are for ({base_url}/v1), its authorization servers and scopes.
console.log(server.resourceId, server.resource.authorization_servers, server.resource.scopes_supported);
