// The OAuth 2.1 server as far as a client sees it without a browser.
//
// - `oauthClients` (`--allow-writes`: it registers clients): dynamic registration (201,
//   defaults, no secret and no management token, redirect URI rules, shared-secret
//   methods refused), the redirect URI compared exactly at the authorization request (a
//   loopback port varies only for a native client), revoke's 200 for unknown tokens,
//   token errors in the OAuth form.
// - `oauthFlow` (`--allow-writes`, and `--oauth-auto-consent`: the caller declares that
//   the server consents at once, each authorization request a new consent granting every
//   requested scope): the authorization's 303 and its errors, the code exchange, the
//   token reply, the token on /v1, refresh (narrowing, rotation, the parallel loser),
//   revoke (the token only; a used refresh token revokes the grant), a new consent
//   revoking the previous grant, a stream ended by `terminated` when its token is revoked.
// - `oauthToken` (read-only, `--oauth-token`): what a given access token may do on /v1.
import { createHash, randomBytes } from "node:crypto";
import { operationById, scopes as vocabulary, validatorAt } from "../../contract/index.ts";
import { oauthFormRule } from "../broken-rule.ts";
import { errorCodeOf } from "../describe.ts";
import { randomToken, type Check, type CheckContext } from "../context.ts";
import type { Exchange, RequestSpec } from "../http.ts";
import { SUITE_REDIRECT_URI } from "../options.ts";
import { bodyShown } from "../describe.ts";

const LOOPBACK_REDIRECT = SUITE_REDIRECT_URI;
const WEB_REDIRECT = "https://conformance.invalid/oauth/callback";
const redirectQueryValid = validatorAt("#/paths/~1oauth~1authorize/get/responses/303/x-redirect-query");
const OAUTH_STATUS: Readonly<Record<string, number>> = { invalid_grant: 400, invalid_request: 400, invalid_client: 401, invalid_redirect_uri: 400, invalid_client_metadata: 400 };

const CLIENT_RULES = ["OAUTH-6", "OAUTH-7", "OAUTH-3", "OAUTH-16", "OAUTH-17"];
const FLOW_RULES = ["OAUTH-8", "OAUTH-10", "OAUTH-12", "OAUTH-13", "OAUTH-14", "OAUTH-15", "ST-6", "AUTH-2", "EVT-7"];
const TOKEN_RULES = ["AUTH-2", "AUTH-6", "W-11"];

function form(fields: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) q.set(k, v);
  return q.toString();
}

async function oauthPost(c: CheckContext, path: "/oauth/token" | "/oauth/revoke", fields: Record<string, string | undefined>, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
  return c.request({ method: "POST", path, key: null, label: "oauth-client", raw: form(fields), rule, ...extra, headers: { "content-type": "application/x-www-form-urlencoded", ...extra.headers } });
}

/** The answer is the OAuth error form (`error`, `error_description`) with this `error` and its status. */
function oauthError(c: CheckContext, ex: Exchange, error: string, rule: string, what: string): boolean {
  const got = typeof ex.json?.error === "string" ? ex.json.error : undefined;
  if (!c.expect(ex.status === OAUTH_STATUS[error] && got === error, rule, `${what}: expected ${OAUTH_STATUS[error]} ${error} in the OAuth form, got ${ex.status} ${got ?? `with ${bodyShown(ex.text)}`}`, ex)) return false;
  // The form itself (an error_description beside the error) is the rule of the route's OAuth form.
  return c.expect(typeof ex.json?.error_description === "string" && ex.json.error_description.length > 0, oauthFormRule(ex.operation?.operationId) ?? rule, `${what}: the OAuth error ${error} has no error_description`, ex);
}

function register(c: CheckContext, metadata: Record<string, unknown>, rule: string): Promise<Exchange> {
  return c.post("/oauth/register", metadata, rule, { key: null, label: "oauth-client" });
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

interface Authorized {
  ex: Exchange;
  /** The query of the redirect back to the application, when the answer is one. */
  back?: Record<string, string>;
  verifier: string;
  state: string;
}

function authorizePath(client: { clientId: string; redirectUri: string }, scope: string, challenge: string, state: string, changes: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams({ response_type: "code", client_id: client.clientId, redirect_uri: client.redirectUri, scope, state, code_challenge: challenge, code_challenge_method: "S256" });
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) q.delete(k);
    else q.set(k, v);
  }
  return `/oauth/authorize?${q}`;
}

/** Where a redirect goes, when it goes to `redirect` (same address without the query). */
function backTo(ex: Exchange, redirect: string): Record<string, string> | undefined {
  const location = ex.headers.get("location");
  if (ex.status < 300 || ex.status >= 400 || !location) return undefined;
  try {
    const to = new URL(location, redirect);
    const want = new URL(redirect);
    if (to.origin !== want.origin || to.pathname !== want.pathname) return undefined;
    return Object.fromEntries(to.searchParams);
  } catch {
    return undefined;
  }
}

async function authorize(c: CheckContext, client: { clientId: string; redirectUri: string }, scope: string, rule: string, changes: Record<string, string | undefined> = {}): Promise<Authorized> {
  const { verifier, challenge } = pkce();
  const state = `conformance-${randomToken()}`;
  // Never through `prism proxy`: Prism follows the 303 to the redirect address itself.
  const ex = await c.get(authorizePath(client, scope, challenge, state, changes), rule, { key: null, label: "browser", direct: true });
  return { ex, back: backTo(ex, client.redirectUri), verifier, state };
}

/** A refusal shown to the user: 4xx, and no redirect to the address given. */
function shownToUser(c: CheckContext, ex: Exchange, redirect: string, rule: string, what: string): void {
  const location = ex.headers.get("location") ?? "";
  c.expect(ex.status >= 400 && ex.status < 500 && !location.startsWith(redirect.split("?")[0]!), rule, `${what}: answered ${ex.status}${location ? ` to ${location}` : ""}; it is refused at once, without sending the browser there`, ex);
}

// ---------------------------------------------------------------------------

export const oauthClients: Check = {
  name: "OAuth: registration, redirect URIs, revoke and token errors",
  rules: CLIENT_RULES,
  needs: { writes: true },
  async run(c) {
    const native = await register(c, { redirect_uris: [LOOPBACK_REDIRECT], client_name: "Conformance check (native)" }, "OAUTH-6");
    if (c.unavailable(native, CLIENT_RULES)) return;
    if (c.expect(native.status === 201 && typeof native.json?.client_id === "string", "OAUTH-6", `a registration answered ${native.status} ${native.json?.error ?? ""}, not 201 with client_id`, native)) {
      const r = native.json;
      const grants = Array.isArray(r.grant_types) ? [...r.grant_types].sort().join(" ") : String(r.grant_types);
      c.expect(grants === "authorization_code refresh_token", "OAUTH-6", `grant_types defaulted to ${JSON.stringify(r.grant_types)}; both authorization_code and refresh_token by default`, native);
      c.expect(JSON.stringify(r.response_types) === '["code"]', "OAUTH-6", `response_types defaulted to ${JSON.stringify(r.response_types)}, not ["code"]`, native);
      c.expect(r.token_endpoint_auth_method === "none", "OAUTH-6", `token_endpoint_auth_method defaulted to ${JSON.stringify(r.token_endpoint_auth_method)}, not none`, native);
      c.expect(r.application_type === "native", "OAUTH-6", `a client whose redirect addresses are all loopback http: is ${JSON.stringify(r.application_type)}, not native`, native);
      c.expect(JSON.stringify(r.redirect_uris) === JSON.stringify([LOOPBACK_REDIRECT]), "OAUTH-6", `redirect_uris came back as ${JSON.stringify(r.redirect_uris)}`, native);
      const issued = Number(r.client_id_issued_at);
      c.expect(Math.abs(issued - Date.now() / 1000) < 86_400, "OAUTH-6", `client_id_issued_at ${JSON.stringify(r.client_id_issued_at)} is not the Unix time of the registration (now ${Math.round(Date.now() / 1000)})`, native);
      const management = ["registration_access_token", "registration_client_uri"].filter((k) => k in r);
      c.expect(management.length === 0, "OAUTH-6", `the reply carries ${management.join(", ")}: there is no registration management`, native);
      c.shared.oauthClient ??= { clientId: String(r.client_id), redirectUri: LOOPBACK_REDIRECT, registered: true };
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
    const mine = c.shared.oauthClient;
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

// ---------------------------------------------------------------------------

/** A scope the suite asks for in the code flow (all four in the vocabulary). */
const FLOW_SCOPE = ["me:read", "models:read", "generations:read", "billing:read"].filter((s) => vocabulary.includes(s)).join(" ");

interface Tokens {
  access: string;
  refresh?: string;
  scope: string[];
  expiresIn: number;
  /** Label of the grant's requests (each grant has its own rate window). */
  label: string;
}

export const oauthFlow: Check = {
  name: "OAuth: the code flow (auto-consent declared)",
  rules: [...FLOW_RULES, "OAUTH-3", "OAUTH-16", "OAUTH-17", "AUTH-6", "AUTH-8", "W-11", "ACC-2"],
  needs: { writes: true },
  async run(c) {
    const o = c.settings.options.oauth;
    if (!o?.autoConsent) {
      c.skip(FLOW_RULES, "the code flow needs a user's consent in a browser: not run (--oauth-auto-consent declares a server that consents at once, for tests)");
      return;
    }
    const client = o.clientId && o.redirectUri ? { clientId: o.clientId, redirectUri: o.redirectUri, registered: false } : c.shared.oauthClient;
    if (!client) {
      c.skip(FLOW_RULES, "no OAuth client: none registered and none given (--oauth-client-id with --oauth-redirect-uri)");
      return;
    }
    await new Flow(c, client).run();
  },
};

class Flow {
  readonly issued: Tokens[] = [];
  readonly issuer: string;
  readonly resource: string;

  constructor(readonly c: CheckContext, readonly client: { clientId: string; redirectUri: string; registered: boolean }) {
    this.issuer = c.shared.issuer ?? c.settings.baseUrl;
    this.resource = c.shared.resource ?? `${c.settings.baseUrl}/v1`;
  }

  token(fields: Record<string, string | undefined>, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
    return oauthPost(this.c, "/oauth/token", { client_id: this.client.clientId, ...fields }, rule, extra);
  }

  revoke(token: string, hint: string, rule: string): Promise<Exchange> {
    return oauthPost(this.c, "/oauth/revoke", { token, token_type_hint: hint, client_id: this.client.clientId }, rule);
  }

  /** An authorization the server consents to at once: the code, or undefined (and a failure). */
  async code(rule: string, changes: Record<string, string | undefined> = {}, failRule = "OAUTH-10", scope = FLOW_SCOPE): Promise<Authorized & { code?: string }> {
    const a = await authorize(this.c, this.client, scope, rule, changes);
    const code = a.back?.code;
    if (!code) this.c.fail(failRule, `with auto-consent declared, an authorization request answered ${a.ex.status}${a.ex.headers.get("location") ? ` to ${a.ex.headers.get("location")}` : ""}, not a 303 to the redirect address with a code`, a.ex);
    return { ...a, code };
  }

  /** Exchanges a code; the tokens of a new grant, or undefined. */
  async exchange(a: Authorized & { code?: string }, rule: string, fields: Record<string, string | undefined> = {}): Promise<Tokens | undefined> {
    if (!a.code) return undefined;
    const ex = await this.token({ grant_type: "authorization_code", code: a.code, redirect_uri: this.client.redirectUri, code_verifier: a.verifier, ...fields }, rule);
    return this.tokens(ex, rule, `grant ${++this.c.shared.oauthGrants}`);
  }

  tokens(ex: Exchange, rule: string, label: string): Tokens | undefined {
    if (!this.c.expect(ex.status === 200 && typeof ex.json?.access_token === "string", rule, `the token route answered ${ex.status} ${typeof ex.json?.error === "string" ? ex.json.error : `with ${bodyShown(ex.text)}`}, not tokens`, ex)) return undefined;
    const t: Tokens = { access: ex.json.access_token, refresh: typeof ex.json.refresh_token === "string" ? ex.json.refresh_token : undefined, scope: String(ex.json.scope ?? "").split(" ").filter(Boolean), expiresIn: Number(ex.json.expires_in), label: `oauth ${label}` };
    this.issued.push(t);
    return t;
  }

  /** A refresh; `expected`: it must answer tokens (a failure otherwise), else the caller judges the answer. */
  async refresh(t: Tokens, rule: string, options: { scope?: string; expected?: boolean } = {}): Promise<{ ex: Exchange; next?: Tokens }> {
    const ex = await this.token({ grant_type: "refresh_token", refresh_token: t.refresh, scope: options.scope }, rule);
    const label = t.label.replace(/^oauth /, "");
    const next = options.expected !== false || ex.status === 200 ? this.tokens(ex, rule, label) : undefined;
    return { ex, next };
  }

  whoami(t: Tokens, rule: string): Promise<Exchange> {
    return this.c.get("/v1/whoami", rule, { key: t.access, label: t.label });
  }

  /** The token no longer opens /v1: 401 invalid_token with its challenge. */
  async refused(t: Tokens, rule: string, what: string): Promise<void> {
    const ex = await this.whoami(t, rule);
    if (this.c.refusal(ex, "invalid_token", rule, what)) {
      const challenge = ex.headers.get("www-authenticate") ?? "";
      this.c.expect(/error="?invalid_token"?/.test(challenge), "AUTH-8", `a 401 for a revoked token without error="invalid_token": ${JSON.stringify(challenge)}`, ex);
    }
  }

  async run(): Promise<void> {
    const c = this.c;
    try {
      await this.errors();

      // Success with every parameter (resource given explicitly): 303 with code, state, iss.
      const first = await this.code("OAUTH-8", { resource: this.resource });
      if (!first.code) {
        c.skip(FLOW_RULES, "the authorization request did not come back with a code");
        return;
      }
      c.expect(redirectQueryValid(first.back), "OAUTH-10", `the redirect query ${JSON.stringify(first.back)} is not the contract's (code, state, iss)`, first.ex);
      c.expect(first.ex.status === 303, "OAUTH-10", `a successful authorization answered ${first.ex.status}, not 303`, first.ex);
      c.expect(first.back!.state === first.state, "OAUTH-10", `state came back as ${JSON.stringify(first.back!.state)}, not unchanged (${first.state})`, first.ex);
      c.expect(first.back!.iss === this.issuer, "OAUTH-10", `iss is ${JSON.stringify(first.back!.iss)}, not the issuer ${this.issuer}`, first.ex);
      c.pass("OAUTH-8", "an authorization request with every parameter (resource explicit) was answered with a code");

      // No client secret: a valid code with a client_secret is refused.
      const secret = await this.token({ grant_type: "authorization_code", code: first.code, redirect_uri: this.client.redirectUri, code_verifier: first.verifier, client_secret: "conformance-secret" }, "OAUTH-3");
      c.target.deliberate(secret);
      if (secret.status === 200) {
        c.fail("OAUTH-3", "a code exchange with a client_secret was accepted; shared-secret methods are refused", secret);
        this.tokens(secret, "OAUTH-3", `grant ${++this.c.shared.oauthGrants}`);
      } else c.expect(secret.status === 400 || secret.status === 401, "OAUTH-3", `a code exchange with a client_secret answered ${secret.status}, not a refusal in the OAuth form`, secret);

      // invalid_grant: another code_verifier, another redirect_uri.
      const second = await this.code("OAUTH-16");
      if (second.code) {
        const ex = await this.token({ grant_type: "authorization_code", code: second.code, redirect_uri: this.client.redirectUri, code_verifier: pkce().verifier }, "OAUTH-16");
        oauthError(c, ex, "invalid_grant", "OAUTH-16", "a code exchange with another code_verifier");
      }
      const third = await this.code("OAUTH-16");
      if (third.code) {
        const ex = await this.token({ grant_type: "authorization_code", code: third.code, redirect_uri: `${this.client.redirectUri}/other`, code_verifier: third.verifier }, "OAUTH-16");
        oauthError(c, ex, "invalid_grant", "OAUTH-16", "a code exchange with another redirect_uri");
      }

      // The exchange and the token reply.
      const t = await this.exchange(await this.code("OAUTH-12"), "OAUTH-12", { resource: this.resource });
      if (!t) {
        c.skip(["OAUTH-13", "OAUTH-14", "OAUTH-15", "ST-6", "AUTH-2", "EVT-7"], "the code exchange gave no tokens");
        return;
      }
      c.pass("OAUTH-12", "code, redirect_uri, code_verifier, client_id and resource exchanged for tokens");
      const asked = FLOW_SCOPE.split(" ");
      c.expect(t.scope.length > 0 && t.scope.every((s) => asked.includes(s)), "OAUTH-14", `the token reply's scope ${JSON.stringify(t.scope.join(" "))} is not within the scopes asked (${FLOW_SCOPE})`);
      if (this.client.registered) c.expect(t.refresh !== undefined, "OAUTH-14", "no refresh_token for a client that has the refresh_token grant");
      c.expect(t.expiresIn > 0, "OAUTH-14", `expires_in is ${t.expiresIn}; the access token's lifetime in seconds`);
      await tokenChecks(c, t.access, t.scope, t.label);
      if (!t.refresh) {
        c.skip(["OAUTH-13", "OAUTH-15", "ST-6"], "the token reply has no refresh token");
        return;
      }
      await this.lifecycle(t);
      await this.newConsent();
      c.skip(["OAUTH-12", "OAUTH-13"], "private_key_jwt client assertions not exercised: the suite's client is public (none)");
      c.skip(["OAUTH-15"], "expiry of unused refresh tokens and the grant's absolute lifetime not exercised (their lengths are not shown); a used refresh token at the token route after the parallel window not tried (the window's length is not shown; on revoke, under ST-6)");
      c.skip(["OAUTH-17"], "a user's revocation in their profile cannot be done by a client");
      c.skip(["OAUTH-10"], "access_denied not provoked: it needs a user who declines, or an account without API access");
      c.skip(["AUTH-2"], "that the token is opaque, and valid only for {base_url}/v1, is not observable from one address");
      c.skip(["EVT-7"], "access withdrawn by a suspended account, lost API access or a lost scope not tried (a client cannot withdraw them)");
    } finally {
      await this.cleanup();
    }
  }

  /** Leaves no live token behind (revoking an already revoked one answers 200 too). */
  async cleanup(): Promise<void> {
    for (const t of this.issued.splice(0)) {
      if (t.refresh) await this.revoke(t.refresh, "refresh_token", "OAUTH-17");
      await this.revoke(t.access, "access_token", "OAUTH-17");
    }
  }

  /** Errors of the authorization request go back to the application (the server reached them). */
  async errors(): Promise<void> {
    const cases: [Record<string, string | undefined>, string, string][] = [
      [{ scope: "conformance:no-such-scope" }, "invalid_scope", "no API scope"],
      [{ response_type: "token" }, "unsupported_response_type", "response_type token"],
      [{ code_challenge_method: "plain" }, "invalid_request", "code_challenge_method plain"],
      [{ code_challenge: undefined }, "invalid_request", "no code_challenge"],
      [{ resource: "https://conformance.invalid/v1" }, "invalid_target", "another resource"],
    ];
    for (const [changes, error, what] of cases) {
      const a = await authorize(this.c, this.client, FLOW_SCOPE, "OAUTH-10", changes);
      this.c.target.deliberate(a.ex);
      this.c.expect(
        a.ex.status === 303 && a.back?.error === error && Boolean(a.back.error_description) && a.back.code === undefined && a.back.state === a.state && redirectQueryValid(a.back),
        "OAUTH-10",
        `an authorization request with ${what} answered ${a.ex.status}${a.back ? ` back with ${JSON.stringify(a.back)}` : ""}; expected a 303 back with error=${error}, error_description and the state, no code`,
        a.ex,
      );
    }
  }

  /** Refresh, rotation, the parallel loser, revoke of one token, revoke of a used refresh token. */
  async lifecycle(t: Tokens): Promise<void> {
    const c = this.c;
    // Refresh narrowing the access token; the refresh token rotates.
    const narrow = "models:read";
    const grant = await this.whoami(t, "ACC-2");
    const r1 = await this.refresh(t, "OAUTH-13", { scope: narrow });
    if (!r1.next) return;
    c.expect(r1.next.scope.join(" ") === narrow, "OAUTH-13", `a refresh asking for scope ${narrow} answered scope ${JSON.stringify(r1.next.scope.join(" "))}`, r1.ex);
    const who = await this.whoami(r1.next, "OAUTH-13");
    const held = Array.isArray(who.json?.scopes) ? who.json.scopes.join(" ") : undefined;
    c.expect(who.status === 200 && held === narrow, "OAUTH-13", `the narrowed access token holds ${JSON.stringify(held)} (whoami ${who.status}), not ${narrow}`, who);
    // key_id is the grant's id: the same for every token a refresh of the grant gives.
    if (grant.status === 200 && who.status === 200) c.expect(who.json?.key_id === grant.json?.key_id, "ACC-2", `whoami says key_id ${JSON.stringify(who.json?.key_id)} for a refreshed access token and ${JSON.stringify(grant.json?.key_id)} for the token of the same grant it was refreshed from; key_id is the grant's id`, who);
    c.expect(r1.next.refresh !== undefined && r1.next.refresh !== t.refresh, "OAUTH-15", "a refresh did not answer a new refresh token (rotation)", r1.ex);
    // The used refresh token again, right after: the parallel loser gets invalid_grant, the grant stays.
    const loser = await this.refresh(t, "OAUTH-15", { expected: false });
    oauthError(c, loser.ex, "invalid_grant", "OAUTH-15", "the refresh token just used, presented again right after");
    const stays = await this.whoami(r1.next, "OAUTH-15");
    c.expect(stays.status === 200, "OAUTH-15", `after a parallel refresh lost, the grant's newest access token answers ${stays.status} ${errorCodeOf(stays.json) ?? ""}; the grant stays`, stays);
    if (!r1.next.refresh) return;

    // Revoke one access token (a stream opened with it ends with `terminated`); the grant remains.
    const r2 = await this.refresh(r1.next, "OAUTH-13");
    if (!r2.next) return;
    if (!c.expect(r2.next.refresh !== undefined && r2.next.refresh !== r1.next.refresh, "OAUTH-15", "a second refresh did not answer a new refresh token (rotation)", r2.ex)) return;
    const opened = await c.target.openStream({ key: r2.next.access, label: r2.next.label, rule: "EVT-7" }, {});
    const gone = await this.revoke(r2.next.access, "access_token", "OAUTH-17");
    c.expect(gone.status === 200 && gone.text.length === 0, "OAUTH-17", `revoking an access token answered ${gone.status} with ${bodyShown(gone.text)}; expected 200 with an empty body`, gone);
    await this.refused(r2.next, "OAUTH-17", "the revoked access token on /v1");
    await terminated(c, opened, r2.next);
    const r3 = await this.refresh(r2.next, "OAUTH-17", { expected: false });
    c.expect(r3.ex.status === 200, "OAUTH-17", `after revoking one access token the grant's refresh token answered ${r3.ex.status} ${r3.ex.json?.error ?? ""}; only that token is revoked, the grant remains`, r3.ex);
    if (!r3.next) return;

    // A used refresh token presented on revoke revokes the whole grant.
    const reuse = await this.revoke(r1.next.refresh, "refresh_token", "ST-6");
    c.expect(reuse.status === 200, "OAUTH-17", `revoking a used refresh token answered ${reuse.status}`, reuse);
    await this.refused(r3.next, "ST-6", "the grant's newest access token after a used refresh token was presented on revoke");
    const dead = await this.refresh(r3.next, "ST-6", { expected: false });
    oauthError(c, dead.ex, "invalid_grant", "ST-6", "the grant's newest refresh token after a used refresh token was presented on revoke");
    // The whole grant: every access token it gave before goes with it, not only the newest.
    await this.refused(t, "ST-6", "the grant's first access token (used on /v1 before) after a used refresh token was presented on revoke");
    await this.refused(r1.next, "ST-6", "the grant's narrowed access token (used on /v1 before) after a used refresh token was presented on revoke");
  }

  /**
   * A refresh narrows to scopes already granted, never widens: asking for one the grant
   * does not hold gives a token without it (or an OAuth error), by its reply and by whoami.
   */
  async noWidening(t: Tokens): Promise<void> {
    const c = this.c;
    const extra = vocabulary.find((s) => !t.scope.includes(s) && !s.startsWith("workflows:"));
    if (!t.refresh || !extra) return;
    const wider = await this.refresh(t, "OAUTH-13", { scope: [...t.scope, extra].join(" "), expected: false });
    if (!wider.next) {
      c.expect(wider.ex.status >= 400 && typeof wider.ex.json?.error === "string", "OAUTH-13", `a refresh asking for ${extra} (not granted) answered ${wider.ex.status} without tokens or an OAuth error`, wider.ex);
      return;
    }
    const who = await this.whoami(wider.next, "OAUTH-13");
    const held: string[] = Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
    c.expect(!wider.next.scope.includes(extra) && !held.includes(extra), "OAUTH-13", `a refresh asking for ${extra}, a scope the grant (${t.scope.join(" ")}) does not hold, gave a token with it (reply scope ${JSON.stringify(wider.next.scope.join(" "))}, whoami ${JSON.stringify(held.join(" "))}); a refresh only narrows`, who);
  }

  /** A new consent revokes the client's previous grant with its tokens; a used code is refused. */
  async newConsent(): Promise<void> {
    const c = this.c;
    const a = await this.code("ST-6");
    const older = await this.exchange(a, "ST-6");
    const was = older ? await this.whoami(older, "ACC-2") : undefined;
    const b = await this.code("ST-6");
    const newer = await this.exchange(b, "ST-6");
    if (!older || !newer) return;
    await this.refused(older, "ST-6", "the access token of the previous grant after a new consent");
    if (older.refresh) {
      const ex = await this.refresh(older, "ST-6", { expected: false });
      oauthError(c, ex.ex, "invalid_grant", "ST-6", "the refresh token of the previous grant after a new consent");
    }
    const live = await this.whoami(newer, "ST-6");
    c.expect(live.status === 200, "ST-6", `the new grant's access token answered ${live.status} ${errorCodeOf(live.json) ?? ""}`, live);
    // A new consent is a new grant: its tokens name another grant id.
    if (was?.status === 200 && live.status === 200) c.expect(live.json?.key_id !== was.json?.key_id, "ACC-2", `the tokens of a new consent and of the grant it revoked both say key_id ${JSON.stringify(live.json?.key_id)}; key_id is the grant's id, and a new consent makes a new grant`, live);
    await this.noWidening(newer);
    // The code of that consent, used once already.
    const again = await this.token({ grant_type: "authorization_code", code: b.code, redirect_uri: this.client.redirectUri, code_verifier: b.verifier }, "OAUTH-16");
    oauthError(c, again, "invalid_grant", "OAUTH-16", "a code exchanged a second time");
  }
}

/**
 * An access token of `scope` alone, from a new consent of the suite's OAuth client (with
 * auto-consent declared and writes allowed), and how to revoke it; undefined when the run
 * cannot have one.
 */
export async function scopedToken(c: CheckContext, scope: string): Promise<{ token: string; label: string; revoke(): Promise<void> } | undefined> {
  const o = c.settings.options.oauth;
  const client = o?.clientId && o.redirectUri ? { clientId: o.clientId, redirectUri: o.redirectUri, registered: false } : c.shared.oauthClient;
  if (!o?.autoConsent || !c.settings.writes || !client) return undefined;
  const flow = new Flow(c, client);
  const t = await flow.exchange(await flow.code("OAUTH-10", {}, "OAUTH-10", scope), "OAUTH-12");
  if (!t) {
    await flow.cleanup();
    return undefined;
  }
  return { token: t.access, label: t.label, revoke: () => flow.cleanup() };
}

/**
 * The stream opened with a credential that was then revoked (an access token, or an API
 * key: `what`) ends with `terminated`, and a reconnect gets the same refusal.
 */
export async function terminated(c: CheckContext, opened: Awaited<ReturnType<CheckContext["target"]["openStream"]>>, t: { access: string; label: string }, what = "an access token"): Promise<void> {
  const s = opened.stream;
  if (!s) {
    c.skip(["EVT-7"], `a stream with ${what} did not open (${opened.exchange.status} ${errorCodeOf(opened.exchange.json) ?? ""})`);
    return;
  }
  const got = await s.until((x) => x.frames.some((f) => f.event === "terminated"), 5_000);
  const frame = s.frames.find((f) => f.event === "terminated");
  await s.until((x) => x.ended, 1_000);
  s.close();
  if (!c.expect(got, "EVT-7", `a stream opened with ${what} that was then revoked got no terminated frame within 5 s`, opened.exchange)) return;
  c.expect(s.ended, "EVT-7", "the stream did not end after its terminated frame", opened.exchange);
  const again = await c.target.openStream({ key: t.access, label: t.label, rule: "EVT-7" }, {});
  again.stream?.close();
  const code = frame?.data?.error?.code;
  c.expect(!again.stream && errorCodeOf(again.exchange.json) === code, "EVT-7", `the terminated frame carries ${JSON.stringify(code)} but a reconnect answered ${again.exchange.status}${errorCodeOf(again.exchange.json) ? ` ${errorCodeOf(again.exchange.json)}` : ""}; a reconnect gets the same refusal`, again.exchange);
}

/**
 * What an access token may do on /v1: it opens the routes of its scopes, `whoami` says
 * `oauth` and the scopes; a route of another scope answers 403 naming the scope; never in
 * the query; with writes, the session-only routes refuse it even with billing:read.
 */
async function tokenChecks(c: CheckContext, token: string, granted: string[], label: string): Promise<void> {
  const who = await c.get("/v1/whoami", "AUTH-2", { key: token, label });
  if (!c.expect(who.status === 200, "AUTH-2", `GET /v1/whoami with the access token answered ${who.status} ${errorCodeOf(who.json) ?? ""}`, who)) return;
  c.expect(who.json?.channel === "oauth", "ACC-2", `an OAuth access token resolved to channel ${JSON.stringify(who.json?.channel)}, not oauth`, who);
  const held: string[] = Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
  if (granted.length > 0) c.expect(held.slice().sort().join(" ") === granted.slice().sort().join(" "), "AUTH-2", `whoami says the token holds [${held.join(" ")}]; the token reply granted [${granted.join(" ")}]`, who);
  const scopes = granted.length > 0 ? granted : held;

  const reads: [string, string][] = [["/v1/models", "listModels"], ["/v1/library/folders", "listLibraryFolders"], ["/v1/billing/transactions?limit=1", "listCreditTransactions"], ["/v1/generations?limit=1", "listGenerations"], ["/v1/me", "readAccount"]];
  const inside = reads.find(([, op]) => scopes.includes(operationById(op).scope ?? ""));
  const outside = reads.find(([, op]) => !scopes.includes(operationById(op).scope ?? "") && operationById(op).scope);
  if (inside) {
    const ex = await c.get(inside[0], "AUTH-2", { key: token, label });
    c.expect(ex.status === 200 || ex.status === 304, "AUTH-2", `GET ${inside[0]} (scope ${operationById(inside[1]).scope}, granted) with the token answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
  }
  if (outside) {
    const need = operationById(outside[1]).scope!;
    const ex = await c.get(outside[0], "AUTH-6", { key: token, label });
    if (c.refusal(ex, "insufficient_scope", "AUTH-6", `GET ${outside[0]} with a token without ${need}`)) {
      const challenge = ex.headers.get("www-authenticate") ?? "";
      c.expect(new RegExp(`scope="?[^"]*\\b${need.replace(":", "\\:")}\\b`).test(challenge), "AUTH-6", `WWW-Authenticate ${JSON.stringify(challenge)} does not name the missing scope ${need}`, ex);
      c.pass("AUTH-2", "a route outside the token's scopes is refused");
    }
  } else c.skip(["AUTH-6"], "the token holds every scope the suite could probe: insufficient_scope for a token not tried");
  const query = await c.get(`/v1/whoami?access_token=${encodeURIComponent(token)}`, "AUTH-4", { key: null });
  c.target.deliberate(query);
  c.expect(query.status === 401 && errorCodeOf(query.json) === "unauthorized", "AUTH-4", `an access token in the query was not refused as no credential: ${query.status} ${errorCodeOf(query.json) ?? ""}`, query);
  if (c.settings.writes) {
    for (const path of ["/v1/subscription/cancel", "/v1/subscription/resume"]) {
      const ex = await c.post(path, path.endsWith("cancel") ? {} : undefined, "W-11", { key: token, label });
      c.target.deliberate(ex);
      c.refusal(ex, "insufficient_scope", "W-11", `POST ${path} with an OAuth token${scopes.includes("billing:read") ? " holding billing:read" : ""}`);
    }
  } else c.skip(["W-11"], "the session-only routes with an OAuth token not tried (needs --allow-writes)");
}

export const oauthToken: Check = {
  name: "OAuth: a given access token on /v1",
  rules: TOKEN_RULES,
  async run(c) {
    const token = c.settings.options.oauthToken;
    if (!token) {
      if (!c.settings.options.oauth?.autoConsent) c.skip(["AUTH-2"], "no OAuth access token given (--oauth-token), and none obtained (--oauth-auto-consent)");
      return;
    }
    await tokenChecks(c, token, [], "oauth token");
  },
};

/**
 * A client ID metadata document the caller published (`--oauth-client-document`): the
 * server reads it at the authorization request (read-only: without a session the answer
 * is a sign-in page, not a refusal) and, with auto-consent declared and writes allowed,
 * the code flow runs with the document's address as `client_id`.
 */
export const oauthDocument: Check = {
  name: "OAuth: a client ID metadata document",
  rules: ["OAUTH-4"],
  async run(c) {
    const o = c.settings.options.oauth;
    const url = o?.clientDocument;
    const redirectUri = o?.redirectUri ?? SUITE_REDIRECT_URI;
    if (!url) {
      c.skip(["OAUTH-4"], `no client ID metadata document given (--oauth-client-document URL: an https address where the caller published a document listing ${redirectUri})`);
      return;
    }
    const client = { clientId: url, redirectUri, registered: false };
    if (!o?.autoConsent) {
      const { ex } = await authorize(c, client, "models:read", "OAUTH-4");
      c.expect(ex.status < 400, "OAUTH-4", `an authorization request with the document's address as client_id answered ${ex.status}: the document was not accepted`, ex);
      c.skip(["OAUTH-4"], "the code flow with the document client not run (needs --oauth-auto-consent)");
      return;
    }
    if (!c.settings.writes) {
      c.skip(["OAUTH-4"], "needs --allow-writes (with auto-consent an authorization request is a new consent)");
      return;
    }
    const flow = new Flow(c, client);
    try {
      const t = await flow.exchange(await flow.code("OAUTH-4", {}, "OAUTH-4"), "OAUTH-4");
      if (!t) return;
      const who = await flow.whoami(t, "OAUTH-4");
      c.expect(who.status === 200, "OAUTH-4", `the access token of the document client answered ${who.status} ${errorCodeOf(who.json) ?? ""}`, who);
      c.pass("OAUTH-4", "the document's address worked as client_id through authorization, exchange and /v1");
      c.skip(["OAUTH-4"], "documents the server must refuse not tried: the caller publishes the document");
    } finally {
      await flow.cleanup();
    }
  },
};
