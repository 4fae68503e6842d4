// The project's own OAuth entry point (src/client/oauth) signing in against the
// simulator's authorization server, not against a fake: discovery, registration, a client
// ID metadata document, the PKCE authorization URL, the code exchange, the token store's
// refresh discipline (rotation, a parallel refresh by another process), the hub client
// with a token provider, and revocation. The consent is given without a browser through
// the simulator's auto-consent convenience (`oauth.autoConsent`, documented in
// docs/simulator.md); the screen itself is tested in oauth-consent.test.ts.
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHubClient } from "../../src/client/index.ts";
import {
  authorizationUrl,
  clientMetadataDocument,
  discover,
  documentClient,
  exchangeCode,
  memoryStorage,
  OAuthGrantError,
  register,
  revoke,
  TokenStore,
  type HubOAuthClient,
  type HubOAuthServer,
} from "../../src/client/oauth/index.ts";
import { checkAnswer, matchOperation } from "../../src/contract/index.ts";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
const violations: string[] = [];
const REDIRECT = "http://127.0.0.1:53682/callback";

/** The fetch the client module uses: every answer is checked against the contract. */
const checkedFetch = async (url: string, init: RequestInit): Promise<Response> => {
  const res = await fetch(url, init);
  const match = matchOperation(init.method ?? "GET", new URL(url).pathname);
  if (match) for (const v of checkAnswer(match.operation, { status: res.status, headers: res.headers, body: await res.clone().text() })) violations.push(`${v.where}: ${v.message}`);
  else violations.push(`${url} is not an operation`);
  return res;
};

/** The same check for the hub client's transport (it fetches Request objects). */
const checkedRequestFetch = async (request: Request): Promise<Response> => {
  const res = await fetch(request);
  const match = matchOperation(request.method, new URL(request.url).pathname);
  if (match) for (const v of checkAnswer(match.operation, { status: res.status, headers: res.headers, body: await res.clone().text() })) violations.push(`${v.where}: ${v.message}`);
  return res;
};

beforeAll(async () => {
  sim = await startSim({ oauth: { autoConsent: "acc_demo" } });
});
beforeEach(() => {
  expect(violations.splice(0)).toEqual([]);
  sim.hub.reset();
});
afterAll(async () => {
  expect(violations).toEqual([]);
  await sim.close();
});

/** The user's browser: follows the authorization URL to the 303 back to the application. */
async function browserConsents(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status).toBe(303);
  return res.headers.get("location")!;
}

async function signIn(scope: string[] = ["me:read", "generations:read"]): Promise<{ server: HubOAuthServer; client: HubOAuthClient; tokens: Awaited<ReturnType<typeof exchangeCode>> }> {
  const server = await discover(sim.url, { allowHttp: true, fetch: checkedFetch });
  const client = await register(server, { redirect_uris: [REDIRECT], client_name: "Client module app" });
  const request = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: scope as never });
  const tokens = await exchangeCode(server, client, request, await browserConsents(request.url));
  return { server, client, tokens };
}

describe("src/client/oauth against the simulator", () => {
  it("OAUTH-2 OAUTH-6 OAUTH-10 OAUTH-12 OAUTH-14: discover, register, authorize with PKCE, exchange the code", async () => {
    const { server, client, tokens } = await signIn();
    expect(server.as.issuer).toBe(sim.url);
    expect(server.resourceId).toBe(`${sim.url}/v1`);
    expect(client.client.client_id).toMatch(/^cli_/);
    expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^gho_/), refresh_token: expect.stringMatching(/^ghr_/), scope: "me:read generations:read", token_type: "bearer" });
    expect(tokens.expires_at).toBeGreaterThan(Date.now());
  });

  it("OAUTH-13 OAUTH-15 AUTH-2 ACC-2: the token store refreshes with rotation and feeds the hub client; a token the API refuses is refreshed once", async () => {
    const { server, client, tokens } = await signIn();
    const storage = memoryStorage(tokens);
    const store = new TokenStore(server, client, { storage });
    const hub = createHubClient({ baseUrl: sim.url, token: store.provider(), fetch: checkedRequestFetch });
    const who = await hub.GET("/v1/whoami");
    expect(who.data).toMatchObject({ channel: "oauth", user_id: "acc_demo" });
    expect(store.refreshCount).toBe(0);
    // The user's application token is revoked: the API answers invalid_token, the store refreshes once.
    await revoke(server, client, tokens.access_token, "access_token");
    const again = await hub.GET("/v1/me");
    expect(again.data).toMatchObject({ id: "acc_demo" });
    expect(store.refreshCount).toBe(1);
    const rotated = (await storage.load())!;
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.access_token).not.toBe(tokens.access_token);
  });

  it("OAUTH-15: two processes refreshing in parallel on one storage: the loser adopts the winner's tokens and the grant stays", async () => {
    const { server, client, tokens } = await signIn();
    const shared = memoryStorage({ ...tokens, expires_at: Date.now() - 1 });
    const a = new TokenStore(server, client, { storage: shared });
    const b = new TokenStore(server, client, { storage: shared, reloadDelay: 20 });
    await a.current();
    await b.current();
    const [ta, tb] = await Promise.all([a.accessToken(), b.accessToken()]);
    expect(ta).toBe(tb);
    expect(a.refreshCount + b.refreshCount).toBe(2);
    const grant = (await sim.control("GET", "oauth/grants")).json.data[0];
    expect(grant.active).toBe(true);
    // Both go on with the rotated refresh token.
    await b.refresh();
    expect((await fetch(`${sim.url}/v1/me`, { headers: { authorization: `Bearer ${await a.accessToken()}` } })).status).toBe(200);
  });

  it("OAUTH-15 ST-6: once the grant is revoked (reuse of a used refresh token), the store answers OAuthGrantError and clears its tokens", async () => {
    const { server, client, tokens } = await signIn();
    const storage = memoryStorage(tokens);
    const store = new TokenStore(server, client, { storage, reloadAttempts: 2, reloadDelay: 5 });
    await store.refresh();
    // Someone presents the first refresh token again after the parallel window: reuse.
    await sim.advance(60);
    const reuse = await fetch(`${sim.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: client.client.client_id }) });
    expect((await reuse.json()).error).toBe("invalid_grant");
    const error = await store.refresh().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthGrantError);
    expect(await storage.load()).toBeUndefined();
  });

  it("OAUTH-17: revoke ends the refresh token given; the access token stays until it expires", async () => {
    const { server, client, tokens } = await signIn();
    await revoke(server, client, tokens.refresh_token!, "refresh_token");
    const store = new TokenStore(server, client, { storage: memoryStorage(tokens), reloadAttempts: 1, reloadDelay: 1 });
    await expect(store.refresh()).rejects.toBeInstanceOf(OAuthGrantError);
    expect((await fetch(`${sim.url}/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  });

  it("OAUTH-4 OAUTH-12: a client ID metadata document (published to the simulator) is the client", async () => {
    const doc = clientMetadataDocument({ client_id: "https://app.example/oauth/client.json", redirect_uris: [REDIRECT], client_name: "Doc app" });
    expect((await sim.control("PUT", "oauth/documents", { url: doc.client_id, document: doc })).status).toBe(201);
    const server = await discover(sim.url, { allowHttp: true, fetch: checkedFetch });
    const client = documentClient(doc);
    const request = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: ["generations:read"] });
    const tokens = await exchangeCode(server, client, request, await browserConsents(request.url));
    expect(tokens.scope).toBe("generations:read");
  });

  it("OAUTH-3 OAUTH-12: a private_key_jwt client registered with its public key signs its token and revoke requests", async () => {
    // The generated type of a JWK in `jwks.keys` is Record<string, never>: a real key needs a cast.
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const server = await discover(sim.url, { allowHttp: true, fetch: checkedFetch });
    const client = await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [(await exportJWK(publicKey)) as never] } }, privateKey);
    const request = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: "me:read" });
    const tokens = await exchangeCode(server, client, request, await browserConsents(request.url));
    const store = new TokenStore(server, client, { storage: memoryStorage(tokens) });
    const refreshed = await store.refresh();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await revoke(server, client, refreshed.access_token);
    expect((await fetch(`${sim.url}/v1/me`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(401);
  });
});
