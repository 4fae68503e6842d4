// Dynamic client registration (201, the defaults, no secret and no management token,
// redirect URI rules, shared-secret methods refused), the redirect URI compared exactly at
// the authorization request (a loopback port varies only for a native client), revoke's 200
// for unknown tokens, token errors in the OAuth form (`--allow-writes`: it registers clients).
import { randomToken } from "../../kit/ids.ts";
import { bodyShown } from "../../kit/describe.ts";
import { authorize, oauthError, oauthPost, pkce, register, shownToUser } from "../../kit/oauth.ts";
import { SUITE_REDIRECT_URI } from "../../facts/given.ts";
import { type Check } from "../../facts/check.ts";

const LOOPBACK_REDIRECT = SUITE_REDIRECT_URI;
const WEB_REDIRECT = "https://conformance.invalid/oauth/callback";
const CLIENT_RULES = ["OAUTH-6", "OAUTH-7", "OAUTH-3", "OAUTH-16", "OAUTH-17"];

export const oauthClients: Check = {
  name: "OAuth: registration, redirect URIs, revoke and token errors",
  rules: CLIENT_RULES,
  needs: { writes: true },
  provides: ["oauthClient"],
  async run(c) {
    const native = await register(c, { redirect_uris: [LOOPBACK_REDIRECT], client_name: "Conformance check (native)" }, "OAUTH-6");
    if (c.unavailable(native, CLIENT_RULES)) return c.notLearnt("oauthClient", "registration is not offered by this server now (503 service_unavailable)");
    if (native.status !== 201 || typeof native.json?.client_id !== "string") c.cannotLearn("oauthClient", "OAUTH-6", `a registration answered ${native.status} ${native.json?.error ?? ""}, not 201 with client_id`, native);
    else {
      c.pass("OAUTH-6");
      const r = native.json;
      const grants = Array.isArray(r.grant_types) ? [...r.grant_types].sort().join(" ") : String(r.grant_types);
      c.expect(grants === "authorization_code refresh_token", "OAUTH-6", `grant_types defaulted to ${JSON.stringify(r.grant_types)}; both authorization_code and refresh_token by default`, native);
      c.expect(JSON.stringify(r.response_types) === '["code"]', "OAUTH-6", `response_types defaulted to ${JSON.stringify(r.response_types)}, not ["code"]`, native);
      c.expect(r.token_endpoint_auth_method === "none", "OAUTH-6", `token_endpoint_auth_method defaulted to ${JSON.stringify(r.token_endpoint_auth_method)}, not none`, native);
      c.expect(r.application_type === "native", "OAUTH-6", `a client whose redirect addresses are all loopback http: is ${JSON.stringify(r.application_type)}, not native`, native);
      c.expect(JSON.stringify(r.redirect_uris) === JSON.stringify([LOOPBACK_REDIRECT]), "OAUTH-6", `redirect_uris came back as ${JSON.stringify(r.redirect_uris)}`, native);
      const issued = Number(r.client_id_issued_at);
      // The server's time, not this machine's: a simulator whose clock an earlier run moved on is ahead of it.
      const now = ((await c.serverTime(native)) ?? Date.now()) / 1000;
      c.expect(Math.abs(issued - now) < 86_400, "OAUTH-6", `client_id_issued_at ${JSON.stringify(r.client_id_issued_at)} is not the Unix time of the registration (the server's time now ${Math.round(now)})`, native);
      const management = ["registration_access_token", "registration_client_uri"].filter((k) => k in r);
      c.expect(management.length === 0, "OAUTH-6", `the reply carries ${management.join(", ")}: there is no registration management`, native);
      c.learn("oauthClient", { clientId: String(r.client_id), redirectUri: LOOPBACK_REDIRECT, registered: true });
    }

    // Redirect URI rules at registration.
    const allowed = [WEB_REDIRECT, "http://localhost:8977/conformance/callback", "http://[::1]/conformance/callback"];
    const web = await register(c, { redirect_uris: allowed, client_name: "Conformance check (web)" }, "OAUTH-7");
    const webClient = web.status === 201 && typeof web.json?.client_id === "string" ? String(web.json.client_id) : undefined;
    c.expect(webClient !== undefined, "OAUTH-7", `a registration with an https: and two loopback http: addresses answered ${web.status} ${web.json?.error ?? ""}`, web);
    if (webClient) c.expect(web.json.application_type === "web", "OAUTH-6", `a client with an https: address defaulted to application_type ${JSON.stringify(web.json.application_type)}, not web`, web);
    for (const [uri, why] of [["http://conformance.invalid/oauth/callback", "http: on a host that is not loopback"], [`${WEB_REDIRECT}#fragment`, "a fragment"], ["conformance-app:/oauth/callback", "another scheme"]]) {
      const ex = await register(c, { redirect_uris: [uri] }, "OAUTH-7");
      c.target.deliberate(ex);
      oauthError(c, ex, "invalid_redirect_uri", "OAUTH-7", `a redirect address with ${why} (${uri})`);
    }
    // Shared-secret methods are refused.
    for (const method of ["client_secret_basic", "client_secret_post"]) {
      const ex = await register(c, { redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: method }, "OAUTH-3");
      c.target.deliberate(ex);
      oauthError(c, ex, "invalid_client_metadata", "OAUTH-3", `a registration asking for ${method}`);
    }
    c.skip(["OAUTH-6"], "the registration rate limit (429 rate_limited) not provoked: it would exhaust the caller's registrations");

    // The redirect address is compared exactly at the authorization request.
    if (webClient) {
      const client = { clientId: webClient, redirectUri: WEB_REDIRECT };
      for (const [uri, why] of [[`${WEB_REDIRECT}/other`, "an unregistered path"], [`${WEB_REDIRECT}/`, "a trailing slash"], ["http://localhost:8978/conformance/callback", "another loopback port for a web client"]]) {
        const { ex } = await authorize(c, { ...client, redirectUri: uri }, "models:read", "OAUTH-7");
        shownToUser(c, ex, uri, "OAUTH-7", `an authorization request with ${why} (${uri})`);
      }
    }
    const mine = c.known("oauthClient");
    if (mine?.registered) {
      const varied = mine.redirectUri.replace(/:(\d+)\//, (_m, p: string) => `:${Number(p) + 1}/`);
      const { ex } = await authorize(c, { ...mine, redirectUri: varied }, "models:read", "OAUTH-7");
      c.expect(ex.status < 400, "OAUTH-7", `a native client's loopback address with another port (${varied}) was refused: ${ex.status}`, ex);
    }

    if (!mine) {
      c.skip(["OAUTH-16", "OAUTH-17"], "no client registered: revoke and the token errors of a known client not tried");
      return;
    }
    // Revoke: 200 with an empty body, also for a token the server never issued.
    for (const hint of [undefined, "refresh_token", "access_token"]) {
      const ex = await oauthPost(c, "/oauth/revoke", { token: `conformance-unknown-${randomToken()}`, token_type_hint: hint, client_id: mine.clientId }, "OAUTH-17");
      c.expect(ex.status === 200 && ex.text.length === 0, "OAUTH-17", `revoking an unknown token${hint ? ` (hint ${hint})` : ""} answered ${ex.status} with ${bodyShown(ex.text)}; expected 200 with an empty body`, ex);
    }
    // Token errors of a known client, in the OAuth form.
    const code = await oauthPost(c, "/oauth/token", { grant_type: "authorization_code", code: `conformance-${randomToken()}`, redirect_uri: mine.redirectUri, code_verifier: pkce().verifier, client_id: mine.clientId }, "OAUTH-16");
    oauthError(c, code, "invalid_grant", "OAUTH-16", "a code the server never issued");
    const refresh = await oauthPost(c, "/oauth/token", { grant_type: "refresh_token", refresh_token: `conformance-${randomToken()}`, client_id: mine.clientId }, "OAUTH-16");
    oauthError(c, refresh, "invalid_grant", "OAUTH-16", "a refresh token the server never issued");
    const stranger = await oauthPost(c, "/oauth/token", { grant_type: "refresh_token", refresh_token: `conformance-${randomToken()}`, client_id: `conformance-unknown-client-${randomToken()}` }, "OAUTH-16");
    oauthError(c, stranger, "invalid_client", "OAUTH-16", "a client the server does not know");
  },
};
