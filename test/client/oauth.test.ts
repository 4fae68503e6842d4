// OAuth entry point against a fake authorization server: discovery, registration,
// PKCE, code exchange, and the token store's refresh discipline.
import { afterEach, describe, expect, it } from "vitest";
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
  type TokenSet,
  type TokenStorage,
} from "../../src/client/oauth/index.ts";
import { fakeAuthServer, type FakeAuthServer } from "./support/oauth-server.ts";

let auth: FakeAuthServer | undefined;
afterEach(async () => {
  const a = auth;
  auth = undefined;
  if (a) {
    await a.server.close();
    expect(a.server.violations).toEqual([]);
  }
});

const REDIRECT = "http://127.0.0.1:53682/callback";

/** Discovery, registration, consent and code exchange: a signed-in application. */
async function signIn(options: { parallelWindowMs?: number } = {}): Promise<{ server: HubOAuthServer; client: HubOAuthClient; tokens: TokenSet; auth: FakeAuthServer }> {
  auth = await fakeAuthServer(options);
  const server = await discover(auth.url, { allowHttp: true });
  const client = await register(server, { redirect_uris: [REDIRECT], client_name: "Test app" });
  const request = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: ["me:read", "generations:read"] });
  const consent = await fetch(request.url, { redirect: "manual" });
  const tokens = await exchangeCode(server, client, request, consent.headers.get("location")!);
  return { server, client, tokens, auth };
}

describe("OAuth flow", () => {
  it("OAUTH-2: discovery reads the authorization server and the protected resource {base_url}/v1", async () => {
    auth = await fakeAuthServer();
    const server = await discover(auth.url, { allowHttp: true });
    expect(server.as.token_endpoint).toBe(`${auth.url}/oauth/token`);
    expect(server.resourceId).toBe(`${auth.url}/v1`);
    expect(auth.server.requests.map((r) => r.path)).toEqual(["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/v1"]);
  });

  it("OAUTH-1 OAUTH-8: the authorization URL carries code, client_id, redirect_uri, scope, resource, state and an S256 challenge", async () => {
    auth = await fakeAuthServer();
    const server = await discover(auth.url, { allowHttp: true });
    const client = await register(server, { redirect_uris: [REDIRECT] });
    const { url, codeVerifier, state } = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: ["me:read"] });
    const q = url.searchParams;
    expect(url.origin + url.pathname).toBe(`${auth.url}/oauth/authorize`);
    expect(Object.fromEntries(q)).toMatchObject({ response_type: "code", client_id: client.client.client_id, redirect_uri: REDIRECT, scope: "me:read", resource: `${auth.url}/v1`, state, code_challenge_method: "S256" });
    const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(codeVerifier))).toString("base64url");
    expect(q.get("code_challenge")).toBe(challenge);
  });

  it("OAUTH-6 OAUTH-3: registration answers a client_id and no secret", async () => {
    auth = await fakeAuthServer();
    const server = await discover(auth.url, { allowHttp: true });
    const { client } = await register(server, { redirect_uris: [REDIRECT], client_name: "Test app" });
    expect(client.client_id).toMatch(/^client_/);
    expect((client as Record<string, unknown>).client_secret).toBeUndefined();
  });

  it("OAUTH-10 OAUTH-12 OAUTH-14: the code exchange checks state and iss and sends the verifier, the redirect and the resource", async () => {
    const { tokens, auth } = await signIn();
    expect(tokens.access_token).toMatch(/^at_/);
    expect(tokens.refresh_token).toMatch(/^rt_/);
    expect(tokens.scope).toBe("me:read generations:read");
    expect(tokens.expires_at).toBeGreaterThan(Date.now());
    const form = auth.tokenRequests[0]!;
    expect(form.get("grant_type")).toBe("authorization_code");
    expect(form.get("redirect_uri")).toBe(REDIRECT);
    expect(form.get("resource")).toBe(`${auth.url}/v1`);
    expect(form.get("code_verifier")).toBeTruthy();
  });

  it("OAUTH-10: a callback with another state is refused before any token request", async () => {
    auth = await fakeAuthServer();
    const server = await discover(auth.url, { allowHttp: true });
    const client = await register(server, { redirect_uris: [REDIRECT] });
    const request = await authorizationUrl(server, client, { redirectUri: REDIRECT, scope: ["me:read"] });
    const consent = await fetch(request.url, { redirect: "manual" });
    await expect(exchangeCode(server, client, { ...request, state: "forged" }, consent.headers.get("location")!)).rejects.toThrow();
    expect(auth.tokenRequests).toHaveLength(0);
  });

  it("OAUTH-4 OAUTH-7: a client ID metadata document is checked and its address is the client_id", async () => {
    const doc = clientMetadataDocument({ client_id: "https://app.example/oauth/client.json", redirect_uris: ["https://app.example/cb", "http://127.0.0.1/cb"], client_name: "App" });
    expect(documentClient(doc).client.client_id).toBe("https://app.example/oauth/client.json");
    expect(() => clientMetadataDocument({ client_id: "http://app.example/c.json", redirect_uris: ["https://app.example/cb"] })).toThrow();
    expect(() => clientMetadataDocument({ client_id: "https://app.example/c.json", redirect_uris: ["http://app.example/cb"] })).toThrow();
    expect(() => clientMetadataDocument({ client_id: "https://app.example/c.json#x", redirect_uris: ["https://app.example/cb"] })).toThrow();
  });

  it("OAUTH-17: revoke sends the token with its hint", async () => {
    const { server, client, tokens, auth } = await signIn();
    await revoke(server, client, tokens.refresh_token!, "refresh_token");
    const form = auth.tokenRequests.at(-1)!;
    expect(form.get("token")).toBe(tokens.refresh_token);
    expect(form.get("token_type_hint")).toBe("refresh_token");
  });
});

describe("token store", () => {
  it("OAUTH-15: 50 concurrent callers with an expired token make one token request and share its result", async () => {
    const { server, client, tokens, auth } = await signIn();
    const saves: TokenSet[] = [];
    const base = memoryStorage({ ...tokens, expires_at: Date.now() - 1 });
    let released = 0;
    const storage: TokenStorage = {
      load: base.load,
      save: async (t) => {
        // No waiter may be released before the rotated refresh token is saved.
        expect(released).toBe(0);
        await new Promise((r) => setTimeout(r, 20));
        saves.push(t);
        await base.save(t);
      },
    };
    const store = new TokenStore(server, client, { storage });
    auth.tokenDelay = 50;
    const before = auth.tokenRequests.length;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.accessToken().then((t) => {
          released++;
          return t;
        }),
      ),
    );
    expect(auth.tokenRequests.length - before).toBe(1);
    expect(new Set(results).size).toBe(1);
    expect(results[0]).not.toBe(tokens.access_token);
    expect(saves).toHaveLength(1);
    expect(saves[0]!.refresh_token).not.toBe(tokens.refresh_token);
    expect((await base.load())!.access_token).toBe(results[0]);
  });

  it("OAUTH-15: invalid_grant after a parallel refresh by another process adopts the winner's saved tokens; the grant stays", async () => {
    const { server, client, tokens, auth } = await signIn();
    // Two processes share one durable storage; each has its own store (and memory).
    const shared = memoryStorage({ ...tokens, expires_at: Date.now() - 1 });
    const a = new TokenStore(server, client, { storage: shared });
    const b = new TokenStore(server, client, { storage: shared, reloadDelay: 40 });
    await a.current();
    await b.current();
    auth.tokenDelay = 100; // the winner's answer is in flight while the loser is refused
    const [ta, tb] = await Promise.all([a.accessToken(), new Promise((r) => setTimeout(r, 20)).then(() => b.accessToken())]);
    expect(ta).toBe(tb);
    expect(auth.grants[0]!.revoked).toBe(false);
    const refreshes = auth.tokenRequests.filter((f) => f.get("grant_type") === "refresh_token");
    expect(refreshes.map((f) => f.get("refresh_token"))).toEqual([tokens.refresh_token, tokens.refresh_token]);
    // Both continue on the rotated refresh token: the next refresh works.
    auth.tokenDelay = 0;
    await b.refresh();
    expect(auth.grants[0]!.revoked).toBe(false);
  });

  it("OAUTH-15 OAUTH-16: invalid_grant with no parallel winner is OAuthGrantError and the stored tokens are cleared", async () => {
    const { server, client, tokens, auth } = await signIn();
    auth.grants[0]!.revoked = true;
    const storage = memoryStorage({ ...tokens, expires_at: Date.now() - 1 });
    const store = new TokenStore(server, client, { storage, reloadAttempts: 2, reloadDelay: 5 });
    const error = await store.accessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthGrantError);
    expect((error as OAuthGrantError).error).toBe("invalid_grant");
    expect(await storage.load()).toBeUndefined();
  });

  it("AUTH-2 OAUTH-13: a token that is still valid is used as is; one refused by the API (invalid_token) is refreshed once", async () => {
    const { server, client, tokens, auth } = await signIn();
    const store = new TokenStore(server, client, { storage: memoryStorage(tokens) });
    const hub = createHubClient({ baseUrl: auth.url, token: store.provider() });
    await hub.GET("/v1/me");
    expect(auth.tokenRequests.filter((f) => f.get("grant_type") === "refresh_token")).toHaveLength(0);
    auth.rejectedAccess.add(tokens.access_token);
    await hub.GET("/v1/me");
    const refreshes = auth.tokenRequests.filter((f) => f.get("grant_type") === "refresh_token");
    expect(refreshes).toHaveLength(1);
    const me = auth.server.requests.filter((r) => r.path === "/v1/me").map((r) => r.headers.authorization);
    expect(me).toEqual([`Bearer ${tokens.access_token}`, `Bearer ${tokens.access_token}`, `Bearer ${(await store.current())!.access_token}`]);
  });
});
