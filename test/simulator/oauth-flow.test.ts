// A whole OAuth sign-in against the simulator, driven by an independent OAuth client
// library (oauth4webapi), not by the project's own client: discovery (RFC 8414 and
// RFC 9728), dynamic registration, authorization with PKCE (the consent screen answered
// as a browser posts it: its own browser test is oauth-consent.test.ts), the code
// exchange, refresh with rotation, reuse detection and revocation, for a public client
// and for a private_key_jwt client. Every answer the library receives is checked against
// the contract.
import { exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkAnswer, matchOperation } from "../../src/contract/index.ts";
import { startSim, type Sim } from "./support/harness.ts";
import { authorizationRequest } from "./support/oauth.ts";
import { consent, signIn, site } from "./support/site.ts";

let sim: Sim;
const violations: string[] = [];
const seen: string[] = [];

/** oauth4webapi's fetch: every answer is checked against the contract on the way. */
const checkedFetch = async (url: string, init: RequestInit): Promise<Response> => {
  const res = await fetch(url, init);
  const text = await res.clone().text();
  const u = new URL(url);
  const match = matchOperation(init.method ?? "GET", u.pathname);
  seen.push(`${init.method ?? "GET"} ${u.pathname} ${res.status}`);
  if (!match) violations.push(`${u.pathname} is not an operation of the contract`);
  else for (const v of checkAnswer(match.operation, { status: res.status, headers: res.headers, body: text })) violations.push(`${v.where}: ${v.message}`);
  return res;
};

// One fetch for every kind of request the library makes (its option types differ per request).
const http = { [oauth.customFetch]: checkedFetch as never, [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = "http://127.0.0.1:49152/callback";

beforeAll(async () => {
  sim = await startSim();
});
afterEach(() => {
  expect(violations.splice(0)).toEqual([]);
  sim.hub.reset();
});
afterAll(() => sim.close());

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(sim.url);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: "oauth2" }));
  const resource = new URL(`${sim.url}/v1`);
  const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, http));
  expect(rs.authorization_servers).toEqual([as.issuer]);
  return as;
}

/** The browser's part: the user signs in, the app's authorization URL shows the screen, the user allows. */
async function userConsents(authorizationUrl: URL): Promise<URL> {
  const cookie = await signIn(sim);
  const page = await site(sim, "GET", authorizationUrl.pathname + authorizationUrl.search, { headers: { cookie } });
  expect(page.status).toBe(200);
  const answer = await consent(sim, cookie, page.text, "allow");
  expect(answer.status).toBe(303);
  return new URL(answer.location!);
}

const authorizationUrl = (as: oauth.AuthorizationServer, client: oauth.Client, scope: string) =>
  authorizationRequest(as, client, { redirectUri: REDIRECT, scope, resource: `${sim.url}/v1` });

const v1 = (token: string, path = "/v1/whoami") => fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("oauth4webapi against the simulator", () => {
  it("OAUTH-1 OAUTH-2 OAUTH-6 OAUTH-10 OAUTH-12 OAUTH-13 OAUTH-14 OAUTH-15 OAUTH-17 ST-6: discovery, registration, PKCE authorization, token, refresh with rotation, reuse detection, revoke (public client)", async () => {
    const as = await discover();
    expect(as.issuer).toBe(sim.url);
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: "oauth4webapi app", token_endpoint_auth_method: "none" }, http),
    );
    expect(client.client_secret).toBeUndefined();
    const auth = oauth.None();

    const { url, verifier, state } = await authorizationUrl(as, client, "me:read generations:read");
    const callback = await userConsents(url);
    // The library checks state and iss (the server announces RFC 9207 support).
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, http));
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("me:read generations:read");
    expect(tokens.refresh_token).toBeTruthy();
    const who = await (await v1(tokens.access_token)).json();
    expect(who).toMatchObject({ channel: "oauth", user_id: "acc_demo", scopes: ["me:read", "generations:read"] });

    // Refresh rotates the refresh token.
    const rotated = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, http));
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await v1(rotated.access_token)).status).toBe(200);

    // A second process refreshing with the same token right away loses: invalid_grant, the grant stays.
    const parallel = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, http));
    await expect(parallel).rejects.toMatchObject({ name: "ResponseBodyError", error: "invalid_grant", status: 400 });
    expect((await v1(rotated.access_token)).status).toBe(200);

    // Later, the used token again: reuse is detected and the whole grant is revoked.
    await sim.advance(30);
    const reuse = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, http));
    await expect(reuse).rejects.toMatchObject({ error: "invalid_grant" });
    // The library reads the resource's challenge: invalid_token, and where its metadata lives.
    const dead = oauth.protectedResourceRequest(rotated.access_token, "GET", new URL(`${sim.url}/v1/whoami`), new Headers(), null, http);
    await expect(dead).rejects.toMatchObject({
      name: "WWWAuthenticateChallengeError",
      status: 401,
      cause: [{ scheme: "bearer", parameters: { error: "invalid_token", resource_metadata: `${sim.url}/.well-known/oauth-protected-resource/v1` } }],
    });
    const afterReuse = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, rotated.refresh_token!, http));
    await expect(afterReuse).rejects.toMatchObject({ error: "invalid_grant" });

    // A new sign-in; revoke ends only the token given, the grant remains.
    const again = await authorizationUrl(as, client, "me:read");
    const params2 = oauth.validateAuthResponse(as, client, await userConsents(again.url), again.state);
    const fresh = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params2, REDIRECT, again.verifier, http));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, fresh.access_token, { ...http, additionalParameters: { token_type_hint: "access_token" } }));
    expect((await v1(fresh.access_token)).status).toBe(401);
    const next = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, fresh.refresh_token!, http));
    expect((await v1(next.access_token)).status).toBe(200);
    // Revoking an unknown token is fine too.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, "ghr_never_issued", http));
    expect(seen).toContain("POST /oauth/revoke 200");
  });

  it("OAUTH-3 OAUTH-12 OAUTH-13 OAUTH-17: a private_key_jwt client signs in, refreshes and revokes with its own key (oauth4webapi's assertions)", async () => {
    const as = await discover();
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "app-key-1" };
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT], client_name: "Signed app", token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } } as Partial<oauth.Client>, http),
    );
    expect(client.token_endpoint_auth_method).toBe("private_key_jwt");
    const auth = oauth.PrivateKeyJwt({ key: privateKey, kid: "app-key-1" });
    const { url, verifier, state } = await authorizationUrl(as, client, "generations:read");
    const params = oauth.validateAuthResponse(as, client, await userConsents(url), state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT, verifier, http));
    expect(tokens.scope).toBe("generations:read");
    expect((await v1(tokens.access_token, "/v1/generations")).status).toBe(200);
    const rotated = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, http));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, rotated.refresh_token!, http));
    const refused = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, rotated.refresh_token!, http));
    await expect(refused).rejects.toMatchObject({ error: "invalid_grant" });
    // Without its key the client is not authenticated.
    const publicTry = oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, http));
    await expect(publicTry).rejects.toMatchObject({ error: "invalid_client", status: 401 });
  });

  it("OAUTH-10: the library sees the error redirects of the seed's table as authorization errors", async () => {
    const as = await discover();
    const client = await oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT] }, http));
    const cookie = await signIn(sim);
    const { url, state } = await authorizationUrl(as, client, "me:read");
    url.searchParams.set("code_challenge_method", "plain");
    const r = await site(sim, "GET", url.pathname + url.search, { headers: { cookie } });
    expect(() => oauth.validateAuthResponse(as, client, new URL(r.location!), state)).toThrow(expect.objectContaining({ error: "invalid_request" }));
  });
});
