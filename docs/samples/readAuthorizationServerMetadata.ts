import { discover } from "@generation-hub/api/oauth";

// Reads /.well-known/oauth-authorization-server and /.well-known/oauth-protected-resource/v1.
// Against the local simulator (http): discover("http://127.0.0.1:4010", { allowHttp: true }).
const server = await discover("https://hub.example");
console.log(server.as.authorization_endpoint, server.as.token_endpoint, server.as.code_challenge_methods_supported);
