// The OAuth 2.1 authorization server, request by request: discovery, registration and
// its limits, client ID metadata documents, the authorization request and its error
// redirects, the consent screen's rules (without a browser: the form as it posts), the
// token route for both grants with none and private_key_jwt clients, rotation, reuse
// detection, revocation, and access tokens on /v1. Every answer of a contract operation
// is checked against the contract.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkAnswer, operationById, scopes as vocabulary } from "../../src/contract/index.ts";
import { FULL, startSim, type Sim } from "./support/harness.ts";
import {
  authorize,
  callbackOf,
  consent,
  pkce,
  REDIRECT,
  register,
  registered,
  signIn,
  site,
  token,
  tokensFor,
  WEB_REDIRECT,
} from "./support/site.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ demoData: false });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** Signs in, authorizes and allows on the screen; answers the callback query and the verifier. */
async function consentFlow(clientId: string, options: { cookie?: string; scope?: string; redirect?: string; allow?: string[] } = {}) {
  const cookie = options.cookie ?? (await signIn(sim));
  const { verifier, challenge } = pkce();
  const page = await authorize(sim, { client_id: clientId, challenge, scope: options.scope, redirect_uri: options.redirect }, cookie);
  expect(page.status, page.text).toBe(200);
  const cb = callbackOf(await consent(sim, cookie, page.text, "allow", options.allow));
  return { cb, verifier, cookie };
}

async function exchange(clientId: string, cb: Record<string, string>, verifier: string, redirect = REDIRECT) {
  return token(sim, { grant_type: "authorization_code", code: cb.code!, redirect_uri: redirect, code_verifier: verifier, client_id: clientId });
}

async function refresh(clientId: string, refreshToken: string, extra: Record<string, string> = {}) {
  return token(sim, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId, ...extra });
}

async function revoke(form: Record<string, string>) {
  return site(sim, "POST", "/oauth/revoke", { form });
}

describe("discovery", () => {
  it("OAUTH-2 OAUTH-1: the authorization server metadata: issuer exactly the base address, the four routes, code with S256 only, none and private_key_jwt, the metadata document flag", async () => {
    const r = await site(sim, "GET", "/.well-known/oauth-authorization-server");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      issuer: sim.url,
      authorization_endpoint: `${sim.url}/oauth/authorize`,
      token_endpoint: `${sim.url}/oauth/token`,
      revocation_endpoint: `${sim.url}/oauth/revoke`,
      registration_endpoint: `${sim.url}/oauth/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
      client_id_metadata_document_supported: true,
      scopes_supported: vocabulary,
    });
  });

  it("OAUTH-2 AUTH-4 AUTH-8: the protected resource metadata of {base_url}/v1, the document every 401 names", async () => {
    const r = await site(sim, "GET", "/.well-known/oauth-protected-resource/v1");
    expect(r.json).toMatchObject({ resource: `${sim.url}/v1`, authorization_servers: [sim.url], scopes_supported: vocabulary, bearer_methods_supported: ["header"] });
    const challenge = (await sim.get("/v1/me", { key: null })).headers.get("www-authenticate")!;
    expect(challenge).toContain(`resource_metadata="${sim.url}/.well-known/oauth-protected-resource/v1"`);
  });
});

describe("dynamic registration", () => {
  it("OAUTH-6 OAUTH-3: 201 repeats the accepted metadata with defaults, a client_id and client_id_issued_at; never a secret", async () => {
    const r = await register(sim, { redirect_uris: [WEB_REDIRECT], client_name: "Example Studio", grant_types: ["authorization_code", "refresh_token", "client_credentials"] });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      client_id: expect.stringMatching(/^cli_/),
      client_id_issued_at: Math.floor(sim.hub.clock.now() / 1000),
      redirect_uris: [WEB_REDIRECT],
      client_name: "Example Studio",
      // Other grant types are dropped.
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "web",
    });
    // A client whose redirect addresses are all loopback http is native.
    expect((await register(sim, { redirect_uris: [REDIRECT, "http://localhost:9000/cb"] })).json.application_type).toBe("native");
    expect((await register(sim, { redirect_uris: [WEB_REDIRECT], application_type: "native" })).json.application_type).toBe("native");
  });

  it("OAUTH-6 OAUTH-7: a bad redirect address answers invalid_redirect_uri", async () => {
    for (const uris of [["com.example.app:/callback"], ["http://app.example/cb"], ["https://app.example/cb#frag"], ["/relative"], [], "https://app.example/cb"]) {
      const r = await register(sim, { redirect_uris: uris });
      expect(r.status, JSON.stringify(uris)).toBe(400);
      expect(r.json.error, JSON.stringify(uris)).toBe("invalid_redirect_uri");
      expect(r.json.error_description).toEqual(expect.any(String));
    }
    expect((await register(sim, { client_name: "no redirect" })).json.error).toBe("invalid_redirect_uri");
    for (const ok of ["http://localhost/cb", "http://127.0.0.1:1/cb", "http://[::1]:8080/cb", "https://app.example/cb?x=1"]) {
      expect((await register(sim, { redirect_uris: [ok] })).status, ok).toBe(201);
    }
  });

  it("OAUTH-6 OAUTH-3 OAUTH-4: other metadata errors answer invalid_client_metadata (shared secrets, keys, response types, unknown fields)", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const pub = await exportJWK(publicKey);
    const priv = await exportJWK(privateKey);
    const bad: Record<string, unknown>[] = [
      { token_endpoint_auth_method: "client_secret_basic" },
      { token_endpoint_auth_method: "client_secret_post" },
      { token_endpoint_auth_method: "private_key_jwt" },
      { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [pub] }, jwks_uri: "https://app.example/jwks.json" },
      { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [priv] } },
      { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } },
      { response_types: ["token"] },
      { grant_types: ["refresh_token"] },
      { application_type: "desktop" },
      { client_secret: "s3cret" },
      { jwks_uri: "http://app.example/jwks.json", token_endpoint_auth_method: "private_key_jwt" },
    ];
    for (const extra of bad) {
      const r = await register(sim, { redirect_uris: [WEB_REDIRECT], ...extra });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(r.json.error, JSON.stringify(extra)).toBe("invalid_client_metadata");
    }
    const notJson = await site(sim, "POST", "/oauth/register", { raw: "{", headers: { "content-type": "application/json" } });
    expect(notJson.json.error).toBe("invalid_client_metadata");
    const signed = await register(sim, { redirect_uris: [WEB_REDIRECT], token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [pub] } });
    expect(signed.status).toBe(201);
    expect(signed.json.jwks).toEqual({ keys: [pub] });
  });

  it("OAUTH-6: registration is rate limited per caller address and in total: 429 rate_limited with Retry-After", async () => {
    for (const [oauth, scope] of [[{ registrationPerIp: 2, registrationTotal: 100 }, "address"], [{ registrationPerIp: 100, registrationTotal: 2 }, "in total"]] as const) {
      const limited = await startSim({ oauth });
      try {
        for (let i = 0; i < 2; i++) expect((await register(limited, { redirect_uris: [REDIRECT] })).status).toBe(201);
        const refused = await register(limited, { redirect_uris: [REDIRECT] });
        expect(refused.status).toBe(429);
        expect(refused.json.error.code).toBe("rate_limited");
        expect(refused.json.error.message).toContain(scope);
        expect(Number(refused.headers.get("retry-after"))).toBe(600);
        await limited.advance(600);
        expect((await register(limited, { redirect_uris: [REDIRECT] })).status).toBe(201);
      } finally {
        await limited.close();
      }
    }
  });
});

describe("client ID metadata documents", () => {
  const DOC = "https://studio.example/oauth/client.json";
  const publish = (body: Record<string, unknown>) => sim.control("PUT", "oauth/documents", { url: DOC, ...body });
  const doc = (extra: Record<string, unknown> = {}) => ({ client_id: DOC, client_name: "Studio", redirect_uris: [WEB_REDIRECT], ...extra });

  it("OAUTH-4 OAUTH-9: a published document is the client: its address is the client_id, its client_name is on the screen", async () => {
    expect((await publish({ document: doc({ client_uri: "https://studio.example", logo_uri: "https://studio.example/logo.png", contacts: ["dev@studio.example"] }) })).status).toBe(201);
    const cookie = await signIn(sim);
    const { verifier, challenge } = pkce();
    const page = await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT, challenge }, cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<span id="app-name">Studio</span>');
    const cb = callbackOf(await consent(sim, cookie, page.text, "allow"));
    const t = await exchange(DOC, cb, verifier, WEB_REDIRECT);
    expect(t.status).toBe(200);
    // Without client_name the client_id is shown (another account: no remembered consent).
    await publish({ document: doc({ client_name: undefined }) });
    await sim.control("DELETE", "oauth/cache");
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, await signIn(sim, "acc_other"))).text).toContain(`<span id="app-name">${DOC}</span>`);
  });

  it("OAUTH-5: the production rules stay in force: an unpublished, redirected, oversized or wrong document is shown as unknown, never used", async () => {
    const cookie = await signIn(sim);
    const tryIt = async (clientId = DOC) => authorize(sim, { client_id: clientId, redirect_uri: WEB_REDIRECT }, cookie);
    const expectRefused = async (why: RegExp, clientId?: string) => {
      await sim.control("DELETE", "oauth/cache");
      const r = await tryIt(clientId);
      expect(r.status).toBe(400);
      expect(r.location).toBeNull();
      expect(r.text).toMatch(why);
    };
    await expectRefused(/does not reach the network/);
    await publish({ document: doc(), status: 301, location: "https://elsewhere.example/c.json" });
    await expectRefused(/redirects are not followed/);
    await publish({ document: doc(), status: 404 });
    await expectRefused(/answered 404/);
    await publish({ body: JSON.stringify(doc({ client_name: "x".repeat(6000) })) });
    await expectRefused(/larger than 5120 bytes/);
    await publish({ document: doc({ client_id: "https://studio.example/other.json" }) });
    await expectRefused(/its own address/);
    await publish({ document: doc({ client_secret: "s" }) });
    await expectRefused(/client_secret/);
    await publish({ document: doc({ logo_uri: "http://studio.example/logo.png" }) });
    await expectRefused(/not valid/);
    await publish({ document: ["not", "an", "object"] });
    await expectRefused(/not a JSON object/);
    await publish({ document: doc(), content_type: "text/html" });
    await expectRefused(/not served as JSON/);
    for (const [address, why] of [
      ["https://127.0.0.1/client.json", /not a public address/],
      ["https://localhost/client.json", /not a public address/],
      ["https://10.1.2.3/client.json", /not a public address/],
      ["https://studio.example/a/../client.json", /\. or \.\. segments/],
      ["https://user@studio.example/client.json", /user information/],
      ["https://studio.example", /must have a path/],
    ] as const) {
      await sim.control("PUT", "oauth/documents", { url: address, document: { client_id: address, redirect_uris: [WEB_REDIRECT] } });
      await expectRefused(why, address);
    }
    // An http address is never a document (and not a registered id either).
    await expectRefused(/is not a registered client_id/, "http://studio.example/client.json");
  });

  it("OAUTH-5: the document is cached by Cache-Control max-age within bounds; an edit takes effect when the copy expires", async () => {
    await publish({ document: doc(), cache_control: "max-age=120" });
    const cookie = await signIn(sim);
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(200);
    await publish({ document: doc({ redirect_uris: ["https://studio.example/new-callback"] }) });
    // Still the cached copy.
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(200);
    await sim.advance(121);
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(400);
    expect((await authorize(sim, { client_id: DOC, redirect_uri: "https://studio.example/new-callback" }, cookie)).status).toBe(200);
    // Below the lower bound (60 s) the copy still lives 60 s.
    await publish({ document: doc(), cache_control: "max-age=1" });
    await sim.control("DELETE", "oauth/cache");
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(200);
    await publish({ document: doc({ redirect_uris: ["https://studio.example/third"] }) });
    await sim.advance(30);
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(200);
    await sim.advance(31);
    expect((await authorize(sim, { client_id: DOC, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(400);
  });

  it("OAUTH-5: without max-age the document is cached until its Expires date, within bounds; max-age wins over Expires", async () => {
    const cookie = await signIn(sim);
    const works = async (redirect: string) => (await authorize(sim, { client_id: DOC, redirect_uri: redirect }, cookie)).status === 200;
    const inSeconds = async (s: number) => new Date(((await sim.control("GET", "clock")).json as { now_ms: number }).now_ms + s * 1000).toUTCString();
    // Expires 1,000 s ahead: kept past the 300 s default, dropped after the date.
    await publish({ document: doc(), expires: await inSeconds(1_000) });
    await sim.control("DELETE", "oauth/cache");
    expect(await works(WEB_REDIRECT)).toBe(true);
    await publish({ document: doc({ redirect_uris: ["https://studio.example/new-callback"] }) });
    await sim.advance(400);
    expect(await works(WEB_REDIRECT)).toBe(true);
    await sim.advance(601);
    expect(await works(WEB_REDIRECT)).toBe(false);
    // An Expires that does not parse means already expired: the lower bound (60 s) applies.
    await publish({ document: doc(), expires: "0" });
    await sim.control("DELETE", "oauth/cache");
    expect(await works(WEB_REDIRECT)).toBe(true);
    await publish({ document: doc({ redirect_uris: ["https://studio.example/third"] }) });
    await sim.advance(61);
    expect(await works(WEB_REDIRECT)).toBe(false);
    // max-age and Expires together: max-age decides (100 s, not 1,000 s).
    await publish({ document: doc(), cache_control: "max-age=100", expires: await inSeconds(1_000) });
    await sim.control("DELETE", "oauth/cache");
    expect(await works(WEB_REDIRECT)).toBe(true);
    await publish({ document: doc({ redirect_uris: ["https://studio.example/fourth"] }) });
    await sim.advance(101);
    expect(await works(WEB_REDIRECT)).toBe(false);
  });
});

describe("the authorization request", () => {
  it("OAUTH-11: an unknown client_id or an unregistered redirect_uri is shown to the user, never returned to the application", async () => {
    const clientId = await registered(sim, { redirect_uris: [WEB_REDIRECT] });
    const cookie = await signIn(sim);
    for (const [params, text] of [
      [{ client_id: "cli_unknown", redirect_uri: WEB_REDIRECT }, /Unknown application/],
      [{ client_id: clientId, redirect_uri: "https://evil.example/cb" }, /not registered/],
      [{ client_id: clientId, redirect_uri: `${WEB_REDIRECT}/more` }, /not registered/],
      // Web clients get exact matches only, even for an unregistered query.
      [{ client_id: clientId, redirect_uri: `${WEB_REDIRECT}?x=1` }, /not registered/],
    ] as const) {
      const page = await authorize(sim, params, cookie);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.text).toMatch(text);
      const asJson = await authorize(sim, params, cookie, "application/json");
      expect(asJson.json.error.code).toBe("invalid_request");
    }
    const noClient = await site(sim, "GET", `/oauth/authorize?response_type=code&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}`);
    expect(noClient.status).toBe(400);
  });

  it("OAUTH-8 OAUTH-10: each error of the seed's table goes back to redirect_uri with error, error_description, state and iss", async () => {
    const clientId = await registered(sim);
    const cookie = await signIn(sim);
    const cases: [Partial<Parameters<typeof authorize>[1]>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ challenge: "" }, "invalid_request"],
      [{ method: "plain" }, "invalid_request"],
      [{ method: "" }, "invalid_request"],
      [{ challenge: "too-short" }, "invalid_request"],
      [{ scope: "openid offline_access" }, "invalid_scope"],
      [{ scope: "" }, "invalid_scope"],
      [{ resource: "https://other.example/v1" }, "invalid_target"],
      [{ resource: `${sim.url}/v2` }, "invalid_target"],
    ];
    for (const [params, error] of cases) {
      const cb = callbackOf(await authorize(sim, { client_id: clientId, state: "keep-me", ...params }, cookie));
      expect(cb, JSON.stringify(params)).toEqual({ error, error_description: expect.any(String), state: "keep-me", iss: sim.url });
    }
    // The resource defaults to {base_url}/v1 and may be given as such; offline_access is accepted.
    expect((await authorize(sim, { client_id: clientId, resource: `${sim.url}/v1`, scope: "offline_access me:read" }, cookie)).status).toBe(200);
  });

  it("OAUTH-10: an account without API access or suspended is sent back with access_denied, without a screen", async () => {
    const clientId = await registered(sim);
    for (const account of ["acc_noapi", "acc_suspended"]) {
      const cb = callbackOf(await authorize(sim, { client_id: clientId }, await signIn(sim, account)));
      expect(cb).toMatchObject({ error: "access_denied", state: "st-1", iss: sim.url });
    }
  });

  it("OAUTH-9: the user signs in if needed: the sign-in form, then back to the same authorization", async () => {
    const clientId = await registered(sim);
    const { challenge } = pkce();
    const page = await authorize(sim, { client_id: clientId, challenge });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Sign in to continue to Test app");
    const returnTo = /name="return_to" value="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, "&");
    const signedIn = await site(sim, "POST", "/site/sign-in", { form: { account_id: "acc_demo", return_to: returnTo } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(returnTo);
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const screen = await site(sim, "GET", signedIn.location!, { headers: { cookie } });
    expect(screen.text).toContain('<code id="account">acc_demo</code>');
  });

  it("OAUTH-9 OAUTH-14: the screen shows the name, the return address and one checkbox per scope; unchecked scopes are dropped", async () => {
    const clientId = await registered(sim, { redirect_uris: [WEB_REDIRECT], client_name: "Studio <Pro> & Co" });
    const cookie = await signIn(sim);
    const { verifier, challenge } = pkce();
    const page = await authorize(sim, { client_id: clientId, redirect_uri: WEB_REDIRECT, challenge, scope: "me:read generations:read generations:write bogus:scope" }, cookie);
    expect(page.text).toContain('<span id="app-name">Studio &lt;Pro&gt; &amp; Co</span>');
    expect(page.text).toContain(`<code id="return-address">${WEB_REDIRECT}</code>`);
    expect([...page.text.matchAll(/type="checkbox" name="scope" value="([^"]+)"/g)].map((m) => m[1])).toEqual(["me:read", "generations:read", "generations:write"]);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const cb = callbackOf(await consent(sim, cookie, page.text, "allow", ["me:read", "generations:write"]));
    expect(cb).toMatchObject({ state: "st-1", iss: sim.url });
    const t = await exchange(clientId, cb, verifier, WEB_REDIRECT);
    expect(t.json.scope).toBe("me:read generations:write");
    const me = await sim.get("/v1/me", { key: t.json.access_token });
    expect(me.status).toBe(200);
    expect((await sim.get("/v1/generations", { key: t.json.access_token })).json.error.code).toBe("insufficient_scope");
  });

  it("OAUTH-10: declining, or allowing with every box unchecked, goes back with access_denied", async () => {
    const clientId = await registered(sim);
    const cookie = await signIn(sim);
    for (const [decision, scopes] of [["deny", undefined], ["allow", []]] as const) {
      const page = await authorize(sim, { client_id: clientId }, cookie);
      const cb = callbackOf(await consent(sim, cookie, page.text, decision, scopes as string[] | undefined));
      expect(cb).toEqual({ error: "access_denied", error_description: expect.any(String), state: "st-1", iss: sim.url });
    }
    expect((await sim.control("GET", "oauth/grants")).json.data).toEqual([]);
  });

  it("OAUTH-9: consent is remembered for the same or narrower scopes; a broader request shows the screen again", async () => {
    const clientId = await registered(sim, { redirect_uris: [WEB_REDIRECT] });
    const { cb, cookie } = await consentFlow(clientId, { scope: "me:read generations:read", redirect: WEB_REDIRECT });
    expect(cb.code).toBeTruthy();
    for (const scope of ["me:read generations:read", "generations:read"]) {
      const again = callbackOf(await authorize(sim, { client_id: clientId, redirect_uri: WEB_REDIRECT, scope }, cookie));
      expect(again.code, scope).toBeTruthy();
    }
    const broader = await authorize(sim, { client_id: clientId, redirect_uri: WEB_REDIRECT, scope: "me:read generations:read models:read" }, cookie);
    expect(broader.status).toBe(200);
    expect(broader.text).toContain('name="consent_id"');
    // Remembered for this account only.
    expect((await authorize(sim, { client_id: clientId, redirect_uri: WEB_REDIRECT }, await signIn(sim, "acc_other"))).status).toBe(200);
  });

  it("OAUTH-9 OAUTH-7: native clients (loopback-only ones too) see the screen every time, and may vary the port of a loopback address", async () => {
    const clientId = await registered(sim);
    const { cookie } = await consentFlow(clientId);
    expect((await authorize(sim, { client_id: clientId }, cookie)).status).toBe(200);
    const explicit = await registered(sim, { redirect_uris: [WEB_REDIRECT], application_type: "native" });
    await consentFlow(explicit, { cookie, redirect: WEB_REDIRECT });
    expect((await authorize(sim, { client_id: explicit, redirect_uri: WEB_REDIRECT }, cookie)).status).toBe(200);
    // Another port of the loopback address; the path must still match.
    const { verifier, challenge } = pkce();
    const otherPort = "http://127.0.0.1:40001/callback";
    const page = await authorize(sim, { client_id: clientId, redirect_uri: otherPort, challenge }, cookie);
    const cb = callbackOf(await consent(sim, cookie, page.text, "allow"));
    expect((await exchange(clientId, cb, verifier, otherPort)).status).toBe(200);
    expect((await authorize(sim, { client_id: clientId, redirect_uri: "http://127.0.0.1:40001/other" }, cookie)).status).toBe(400);
    expect((await authorize(sim, { client_id: clientId, redirect_uri: "http://localhost:53682/callback" }, cookie)).status).toBe(400);
  });

  it("OAUTH-9: a consent screen answered from a browser now signed in as another account is refused with 403 access_denied", async () => {
    const clientId = await registered(sim);
    const cookie = await signIn(sim);
    const page = await authorize(sim, { client_id: clientId }, cookie);
    const other = await signIn(sim, "acc_other");
    const refused = await consent(sim, other, page.text, "allow");
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("another account");
    expect(refused.location).toBeNull();
    const asJson = await site(sim, "POST", "/site/oauth/consent", { headers: { cookie: other, accept: "application/json" }, form: { consent_id: "cns_x", decision: "allow" } });
    expect(asJson.status).toBe(400);
    // The screen stays answerable by its own account, once.
    expect(callbackOf(await consent(sim, cookie, page.text, "allow")).code).toBeTruthy();
    expect((await consent(sim, cookie, page.text, "allow")).status).toBe(400);
  });
});

describe("the token route", () => {
  it("OAUTH-12 OAUTH-14 ACC-2: the code exchange answers the token reply; the token works on /v1 as channel oauth with the grant id", async () => {
    const clientId = await registered(sim);
    const { cb, verifier } = await consentFlow(clientId);
    const t = await exchange(clientId, cb, verifier);
    expect(t.status).toBe(200);
    expect(t.json).toEqual({ access_token: expect.stringMatching(/^gho_/), token_type: "Bearer", expires_in: 3600, refresh_token: expect.stringMatching(/^ghr_/), scope: "me:read generations:read" });
    expect(t.headers.get("cache-control")).toBe("no-store");
    const grants = (await sim.control("GET", "oauth/grants")).json.data;
    const who = await sim.get("/v1/whoami", { key: t.json.access_token });
    expect(who.json).toEqual({ user_id: "acc_demo", role: "user", channel: "oauth", key_id: grants[0].id, scopes: ["me:read", "generations:read"] });
  });

  it("OAUTH-16 OAUTH-12: invalid_grant for a used or expired code, another redirect_uri or a wrong code_verifier", async () => {
    const clientId = await registered(sim);
    const other = await registered(sim);
    const bad = async (form: Record<string, string>) => {
      const r = await token(sim, form);
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(r.json.error).toBe("invalid_grant");
      expect(r.json.error_description).toEqual(expect.any(String));
    };
    const { cb, verifier } = await consentFlow(clientId);
    const base = { grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId };
    await bad({ ...base, code_verifier: pkce().verifier });
    await bad({ ...base, code_verifier: "short" });
    await bad({ ...base, redirect_uri: "http://127.0.0.1:53682/other" });
    await bad({ ...base, client_id: other });
    await bad({ ...base, code: "ghc_unknown" });
    expect((await token(sim, base)).status).toBe(200);
    await bad(base);
    const late = await consentFlow(clientId);
    await sim.advance(61);
    await bad({ ...base, code: late.cb.code!, code_verifier: late.verifier });
  });

  it("OAUTH-16 OAUTH-3: invalid_client (401) for an unknown client, a shared secret or a missing assertion; other form errors are 400", async () => {
    const clientId = await registered(sim);
    const { cb, verifier } = await consentFlow(clientId);
    const base = { grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId };
    const unknown = await token(sim, { ...base, client_id: "cli_nobody" });
    expect([unknown.status, unknown.json.error]).toEqual([401, "invalid_client"]);
    const secret = await token(sim, { ...base, client_secret: "s3cret" });
    expect([secret.status, secret.json.error]).toEqual([401, "invalid_client"]);
    const basic = await site(sim, "POST", "/oauth/token", { form: base, headers: { authorization: `Basic ${Buffer.from(`${clientId}:x`).toString("base64")}` } });
    expect([basic.status, basic.json.error]).toEqual([401, "invalid_client"]);
    const grantType = await token(sim, { ...base, grant_type: "client_credentials" });
    expect([grantType.status, grantType.json.error]).toEqual([400, "unsupported_grant_type"]);
    const target = await token(sim, { ...base, resource: "https://other.example/v1" });
    expect([target.status, target.json.error]).toEqual([400, "invalid_target"]);
    for (const form of [{ ...base, code_verifier: undefined }, { ...base, client_id: undefined }, { ...base, extra: "x" }]) {
      const r = await token(sim, Object.fromEntries(Object.entries(form).filter(([, v]) => v !== undefined)) as Record<string, string>);
      expect([r.status, r.json.error], JSON.stringify(form)).toEqual([400, "invalid_request"]);
    }
    const json = await site(sim, "POST", "/oauth/token", { json: base });
    expect(json.json.error).toBe("invalid_request");
    const twice = await site(sim, "POST", "/oauth/token", { raw: `${new URLSearchParams(base)}&code=again`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(twice.json.error).toBe("invalid_request");
    // The code survived all of that: it is still good.
    expect((await token(sim, { ...base, resource: `${sim.url}/v1` })).status).toBe(200);
  });

  it("OAUTH-14: a client without the refresh_token grant gets no refresh token", async () => {
    const clientId = await registered(sim, { grant_types: ["authorization_code"] });
    const { cb, verifier } = await consentFlow(clientId);
    const t = await exchange(clientId, cb, verifier);
    expect(t.json.refresh_token).toBeUndefined();
    expect(t.json.access_token).toBeTruthy();
  });
});

describe("private_key_jwt clients", () => {
  let privateKey: CryptoKey;
  let jwk: JWK;
  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    privateKey = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  });

  const assertion = (clientId: string, claims: Record<string, unknown> = {}, key = privateKey) => {
    const { aud, exp, jti, iss, sub, ...rest } = { aud: `${sim.url}/oauth/token`, exp: undefined, jti: crypto.randomUUID(), iss: clientId, sub: clientId, ...claims } as Record<string, unknown>;
    const jwt = new SignJWT(rest).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuedAt();
    if (iss !== null) jwt.setIssuer(iss as string);
    if (sub !== null) jwt.setSubject(sub as string);
    if (aud !== null) jwt.setAudience(aud as string);
    if (jti !== null) jwt.setJti(jti as string);
    if (exp !== null) jwt.setExpirationTime((exp as number | undefined) ?? "60s");
    return jwt.sign(key);
  };

  it("OAUTH-12 OAUTH-3 OAUTH-13: a client signing with its own key exchanges the code and refreshes; aud is the token route or the base address", async () => {
    const clientId = await registered(sim, { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } });
    const { cb, verifier } = await consentFlow(clientId);
    const t = await token(sim, { grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId) });
    expect(t.status, t.text).toBe(200);
    const r = await token(sim, { grant_type: "refresh_token", refresh_token: t.json.refresh_token, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId, { aud: sim.url }), client_id: clientId });
    expect(r.status, r.text).toBe(200);
    // client_id alone does not authenticate this client.
    const publicTry = await token(sim, { grant_type: "refresh_token", refresh_token: r.json.refresh_token, client_id: clientId });
    expect([publicTry.status, publicTry.json.error]).toEqual([401, "invalid_client"]);
    // Revoke authenticates the same way (aud: the revoke route).
    expect((await revoke({ token: r.json.access_token, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId, { aud: `${sim.url}/oauth/revoke` }) })).status).toBe(200);
    expect((await sim.get("/v1/me", { key: r.json.access_token })).json.error.code).toBe("invalid_token");
  });

  it("OAUTH-16 OAUTH-12: a failed signature, another aud, iss or sub, a missing exp or jti, an expired or replayed assertion answer 401 invalid_client", async () => {
    const clientId = await registered(sim, { token_endpoint_auth_method: "private_key_jwt", jwks: { keys: [jwk] } });
    const { cb, verifier } = await consentFlow(clientId);
    const form = async (a: string | Promise<string>) => ({ grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_assertion_type: ASSERTION_TYPE, client_assertion: await a });
    const stranger = (await generateKeyPair("ES256")).privateKey;
    const replayed = await assertion(clientId);
    const cases: [string, string | Promise<string>][] = [
      ["another key", assertion(clientId, {}, stranger)],
      ["another aud", assertion(clientId, { aud: "https://other.example/oauth/token" })],
      ["another sub", assertion(clientId, { sub: "someone" })],
      ["another iss", assertion(clientId, { iss: "cli_other" })],
      ["no exp", assertion(clientId, { exp: null })],
      ["no jti", assertion(clientId, { jti: null })],
      ["expired", assertion(clientId, { exp: Math.floor(Date.now() / 1000) - 120 })],
      ["not a JWT", "not.a.jwt"],
    ];
    for (const [what, a] of cases) {
      const r = await token(sim, await form(a));
      expect([r.status, r.json.error], what).toEqual([401, "invalid_client"]);
    }
    const typeWrong = await token(sim, { ...(await form(assertion(clientId))), client_assertion_type: "urn:other" });
    expect(typeWrong.status).toBe(400);
    expect((await token(sim, await form(replayed))).status).toBe(200);
    const again = await token(sim, await form(replayed));
    expect([again.status, again.json.error]).toEqual([401, "invalid_client"]);
    expect(again.json.error_description).toContain("already used");
  });

  it("OAUTH-4 OAUTH-12: a metadata document client signs with the keys at its jwks_uri (published too)", async () => {
    const DOC = "https://signer.example/client.json";
    const JWKS = "https://signer.example/jwks.json";
    await sim.control("PUT", "oauth/documents", { url: DOC, document: { client_id: DOC, redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt", jwks_uri: JWKS } });
    const cookie = await signIn(sim);
    const { verifier, challenge } = pkce();
    const page = await authorize(sim, { client_id: DOC, challenge }, cookie);
    const cb = callbackOf(await consent(sim, cookie, page.text, "allow"));
    const body = async () => ({ grant_type: "authorization_code", code: cb.code!, redirect_uri: REDIRECT, code_verifier: verifier, client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(DOC) });
    const missing = await token(sim, await body());
    expect([missing.status, missing.json.error]).toEqual([401, "invalid_client"]);
    await sim.control("PUT", "oauth/documents", { url: JWKS, document: { keys: [jwk] } });
    expect((await token(sim, await body())).status).toBe(200);
  });
});

describe("refresh, rotation and reuse", () => {
  it("OAUTH-15 OAUTH-13 ST-6: refresh rotates; the used token presented again within the parallel window is refused and the grant stays", async () => {
    const { clientId, reply } = await tokensFor(sim);
    const first = await refresh(clientId, reply.refresh_token);
    expect(first.status).toBe(200);
    expect(first.json.refresh_token).not.toBe(reply.refresh_token);
    // The loser of a parallel refresh:
    const loser = await refresh(clientId, reply.refresh_token);
    expect([loser.status, loser.json.error]).toEqual([400, "invalid_grant"]);
    // ...and the grant stays: the winner's tokens work.
    expect((await sim.get("/v1/me", { key: first.json.access_token })).status).toBe(200);
    expect((await refresh(clientId, first.json.refresh_token)).status).toBe(200);
  });

  it("OAUTH-15 ST-6 OAUTH-16: reusing a rotated refresh token after the parallel window revokes the grant with all its tokens", async () => {
    const { clientId, reply } = await tokensFor(sim);
    const rotated = await refresh(clientId, reply.refresh_token);
    await sim.advance(11);
    const reuse = await refresh(clientId, reply.refresh_token);
    expect([reuse.status, reuse.json.error]).toEqual([400, "invalid_grant"]);
    expect(reuse.json.error_description).toContain("grant is revoked");
    for (const access of [reply.access_token, rotated.json.access_token]) {
      const r = await sim.get("/v1/me", { key: access });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe("invalid_token");
      expect(r.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    }
    expect((await refresh(clientId, rotated.json.refresh_token)).json.error).toBe("invalid_grant");
    expect((await sim.control("GET", "oauth/grants")).json.data[0]).toMatchObject({ active: false, revoked_reason: "a used refresh token was presented again" });
  });

  it("OAUTH-13: scope narrows the new access token to already granted scopes; the refresh token keeps the grant's", async () => {
    const { clientId, reply } = await tokensFor(sim, { scope: "me:read generations:read" });
    const narrow = await refresh(clientId, reply.refresh_token, { scope: "me:read" });
    expect(narrow.json.scope).toBe("me:read");
    expect((await sim.get("/v1/generations", { key: narrow.json.access_token })).json.error.code).toBe("insufficient_scope");
    const wide = await refresh(clientId, narrow.json.refresh_token);
    expect(wide.json.scope).toBe("me:read generations:read");
    const broader = await refresh(clientId, wide.json.refresh_token, { scope: "me:read models:read" });
    expect([broader.status, broader.json.error]).toEqual([400, "invalid_scope"]);
  });

  it("OAUTH-15: an unused refresh token expires (30 days) and the grant has an absolute lifetime (90 days) that rotation does not extend", async () => {
    const { clientId, reply } = await tokensFor(sim);
    await sim.advance(30 * 86_400 + 1);
    expect((await refresh(clientId, reply.refresh_token)).json.error).toBe("invalid_grant");
    const second = await tokensFor(sim);
    let current = second.reply.refresh_token as string;
    for (let day = 0; day < 3; day++) {
      await sim.advance(29 * 86_400);
      const r = await refresh(second.clientId, current);
      expect(r.status, `rotation ${day}`).toBe(200);
      current = r.json.refresh_token;
      // An access token never outlives the grant.
      expect(r.json.expires_in).toBeLessThanOrEqual(3600);
    }
    await sim.advance(4 * 86_400);
    const end = await refresh(second.clientId, current);
    expect(end.json.error).toBe("invalid_grant");
    expect(end.json.error_description).toContain("absolute lifetime");
  });

  it("ST-6: one active grant per client: a new consent revokes the previous grant with its tokens", async () => {
    const clientId = await registered(sim);
    const firstFlow = await consentFlow(clientId);
    const first = await exchange(clientId, firstFlow.cb, firstFlow.verifier);
    const secondFlow = await consentFlow(clientId, { cookie: firstFlow.cookie });
    const second = await exchange(clientId, secondFlow.cb, secondFlow.verifier);
    expect((await sim.get("/v1/me", { key: first.json.access_token })).json.error.code).toBe("invalid_token");
    expect((await refresh(clientId, first.json.refresh_token)).json.error).toBe("invalid_grant");
    expect((await sim.get("/v1/me", { key: second.json.access_token })).status).toBe(200);
    const grants = (await sim.control("GET", "oauth/grants")).json.data;
    expect(grants.map((g: { active: boolean }) => g.active)).toEqual([false, true]);
    // Another client of the same account keeps its own grant.
    const other = await tokensFor(sim);
    expect((await sim.get("/v1/me", { key: second.json.access_token })).status).toBe(200);
    expect((await sim.get("/v1/me", { key: other.reply.access_token })).status).toBe(200);
  });
});

describe("revoke", () => {
  it("OAUTH-17: 200 with an empty body, also for an unknown or revoked token; only that token is revoked, the grant remains", async () => {
    const { clientId, reply } = await tokensFor(sim);
    for (const t of ["ghr_unknown", "gho_unknown", "anything"]) {
      const r = await revoke({ token: t, client_id: clientId });
      expect(r.status).toBe(200);
      expect(r.text).toBe("");
    }
    expect((await revoke({ token: reply.access_token, client_id: clientId, token_type_hint: "access_token" })).status).toBe(200);
    expect((await sim.get("/v1/me", { key: reply.access_token })).json.error.code).toBe("invalid_token");
    expect((await revoke({ token: reply.access_token, client_id: clientId })).status).toBe(200);
    // The grant remains: the refresh token still gives tokens.
    const fresh = await refresh(clientId, reply.refresh_token);
    expect(fresh.status).toBe(200);
    // Revoking the latest refresh token ends only it.
    expect((await revoke({ token: fresh.json.refresh_token, client_id: clientId, token_type_hint: "refresh_token" })).status).toBe(200);
    expect((await refresh(clientId, fresh.json.refresh_token)).json.error).toBe("invalid_grant");
    expect((await sim.get("/v1/me", { key: fresh.json.access_token })).status).toBe(200);
  });

  it("OAUTH-17 ST-6: presenting a used refresh token to revoke revokes the whole grant; another client's token is left alone", async () => {
    const { clientId, reply } = await tokensFor(sim);
    const stranger = await tokensFor(sim, { accountId: "acc_other" });
    expect((await revoke({ token: stranger.reply.access_token, client_id: clientId })).status).toBe(200);
    expect((await sim.get("/v1/me", { key: stranger.reply.access_token })).status).toBe(200);
    const rotated = await refresh(clientId, reply.refresh_token);
    expect((await revoke({ token: reply.refresh_token, client_id: clientId })).status).toBe(200);
    expect((await sim.get("/v1/me", { key: rotated.json.access_token })).json.error.code).toBe("invalid_token");
  });

  it("OAUTH-17 OAUTH-16: a client that cannot authenticate or be identified gets 401 invalid_client; a missing token is a malformed request (400 invalid_request)", async () => {
    const { clientId, reply } = await tokensFor(sim);
    const r = await revoke({ token: reply.access_token, client_id: "cli_nobody" });
    expect([r.status, r.json.error]).toEqual([401, "invalid_client"]);
    for (const bad of [{ form: { token: reply.access_token } }, { json: { token: reply.access_token, client_id: clientId } }, { raw: "" }]) {
      const refused = await site(sim, "POST", "/oauth/revoke", bad);
      expect([refused.status, refused.json.error], JSON.stringify(bad)).toEqual([401, "invalid_client"]);
    }
    expect((await sim.get("/v1/me", { key: reply.access_token })).status).toBe(200);
    const missing = await revoke({ client_id: clientId });
    expect([missing.status, missing.json.error]).toEqual([400, "invalid_request"]);
  });
});

describe("access tokens on /v1", () => {
  it("AUTH-2 AUTH-6: a token is valid only within its scopes: 403 insufficient_scope names the missing scope in WWW-Authenticate", async () => {
    const { reply } = await tokensFor(sim, { scope: "me:read" });
    const r = await sim.get("/v1/models", { key: reply.access_token });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe("insufficient_scope");
    expect(r.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", scope="models:read", resource_metadata="${sim.url}/.well-known/oauth-protected-resource/v1"`);
  });

  it("AUTH-2 AUTH-7 AUTH-8: an expired token, or one for another resource, answers 401 invalid_token with error=\"invalid_token\"", async () => {
    const { reply } = await tokensFor(sim);
    // The same simulator reached under another base address is another resource.
    const other = sim.url.replace("127.0.0.1", "localhost");
    const res = await fetch(`${other}/v1/me`, { headers: { authorization: `Bearer ${reply.access_token}` } });
    const text = await res.text();
    expect(res.status).toBe(401);
    expect(JSON.parse(text).error.code).toBe("invalid_token");
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${other}/.well-known/oauth-protected-resource/v1", error="invalid_token"`);
    expect(checkAnswer(operationById("readAccount"), { status: res.status, headers: res.headers, body: text })).toEqual([]);
    await sim.advance(3601);
    const expired = await sim.get("/v1/me", { key: reply.access_token });
    expect(expired.json.error.code).toBe("invalid_token");
    expect(expired.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
  });

  it("AUTH-2: tokens are accepted only in the Authorization header on /v1, and the account rungs still apply", async () => {
    const { reply } = await tokensFor(sim);
    expect((await sim.get(`/v1/me?access_token=${reply.access_token}`, { key: null })).json.error.code).toBe("unauthorized");
    await sim.control("PATCH", "accounts/acc_demo", { suspended: true });
    expect((await sim.get("/v1/me", { key: reply.access_token })).json.error.code).toBe("account_suspended");
  });

  it("AUTH-9: an application's monthly spend limit answers 402 grant_spend_limit_reached, beside the keys' key_spend_limit_reached", async () => {
    const { reply } = await tokensFor(sim);
    const grant = (await sim.control("GET", "oauth/grants")).json.data[0];
    const submit = (key: string) => sim.submit({ type: "video", model: "video-model-a", prompt: "a lighthouse", duration: 5 }, { key });
    const accepted = await submit(reply.access_token);
    expect(accepted.status).toBe(202);
    const spent = (await sim.control("GET", `oauth/grants/${grant.id}`)).json.spent_cc;
    expect(spent).toBeGreaterThan(0);
    await sim.control("PATCH", `oauth/grants/${grant.id}`, { spend_limit_cc: spent });
    const refused = await submit(reply.access_token);
    expect(refused.status).toBe(402);
    expect(refused.json.error.code).toBe("grant_spend_limit_reached");
    // A key of the same account is not bound by the application's limit, and its own limit has its own code.
    expect((await submit(FULL)).status).toBe(202);
    expect((await submit("ghk_demo_capped")).json.error.code).toBe("key_spend_limit_reached");
    // A refund gives the spend back.
    await sim.control("POST", `generations/${accepted.json.id}/outcome`, { outcome: "fail" });
    await sim.advance(30);
    expect((await submit(reply.access_token)).status).toBe(202);
  });

  it("OAUTH-17 EVT-7: the user revokes the grant (control interface): open streams end with terminated invalid_token, a reconnect gets the same refusal", async () => {
    const { reply } = await tokensFor(sim);
    const stream = await sim.open({ key: reply.access_token });
    const grant = (await sim.control("GET", "oauth/grants")).json.data[0];
    const revoked = await sim.control("POST", `oauth/grants/${grant.id}/revoke`);
    expect(revoked.json).toMatchObject({ active: false, revoked_reason: "revoked by the user" });
    await stream.until((s) => s.ended);
    expect(stream.frames.at(-1)).toMatchObject({ event: "terminated", data: { error: { code: "invalid_token" } } });
    await expect(sim.open({ key: reply.access_token })).rejects.toMatchObject({ status: 401, body: { error: { code: "invalid_token" } } });
  });

  it("EVT-7: a stream opened with an access token ends when the token expires, and when the user takes away generations:read", async () => {
    const { reply } = await tokensFor(sim);
    const stream = await sim.open({ key: reply.access_token });
    await sim.advance(3600);
    await stream.until((s) => s.ended);
    expect(stream.frames.at(-1)).toMatchObject({ event: "terminated", data: { error: { code: "invalid_token" } } });
    const second = await tokensFor(sim);
    const open = await sim.open({ key: second.reply.access_token });
    const grant = (await sim.control("GET", "oauth/grants?account_id=acc_demo")).json.data.find((g: { client_id: string }) => g.client_id === second.clientId);
    await sim.control("PATCH", `oauth/grants/${grant.id}`, { scopes: ["me:read"] });
    await open.until((s) => s.ended);
    expect(open.frames.at(-1)).toMatchObject({ event: "terminated", data: { error: { code: "insufficient_scope" } } });
  });
});
