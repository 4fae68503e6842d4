// An authorization request built with oauth4webapi (an independent OAuth library), so the
// simulator's authorization server is tested against a client it did not shape: PKCE
// (S256), a random state, and the `resource` indicator when one is given.
import * as oauth from "oauth4webapi";

export async function authorizationRequest(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  options: { redirectUri: string; scope: string; resource?: string },
): Promise<{ url: URL; verifier: string; state: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string> = { response_type: "code", client_id: client.client_id, redirect_uri: options.redirectUri, scope: options.scope, state };
  if (options.resource !== undefined) params.resource = options.resource;
  params.code_challenge = await oauth.calculatePKCECodeChallenge(verifier);
  params.code_challenge_method = "S256";
  url.search = new URLSearchParams(params).toString();
  return { url, verifier, state };
}
