// The code flow (`--allow-writes`, and `--oauth-auto-consent`: the caller declares that the
// server consents at once, each authorization request a new consent granting every
// requested scope): the authorization's 303 and its errors, the code exchange, the token
// reply, the token on /v1, refresh (narrowing, rotation, the parallel loser), revoke (the
// token only; a used refresh token revokes the grant), a new consent revoking the previous
// grant, a stream ended by `terminated` when its token is revoked.
import { scopes as vocabulary } from "../../../contract/index.ts";
import { bodyShown } from "../../kit/describe.ts";
import { authorize, Flow, FLOW_SCOPE, OAUTH_FACTS, oauthError, pkce, redirectQueryValid, type Tokens } from "../../kit/oauth.ts";
import { terminated } from "../../kit/streams.ts";
import { tokenChecks } from "./token.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

const FLOW_RULES = ["OAUTH-8", "OAUTH-10", "OAUTH-12", "OAUTH-13", "OAUTH-14", "OAUTH-15", "ST-6", "AUTH-2", "EVT-7"];

export const oauthFlow: Check = {
  name: "OAuth: the code flow (auto-consent declared)",
  rules: [...FLOW_RULES, "OAUTH-3", "OAUTH-16", "OAUTH-17", "AUTH-6", "AUTH-8", "W-11", "ACC-2"],
  needs: { writes: true, uses: OAUTH_FACTS },
  async run(c) {
    const o = c.settings.options.oauth;
    if (!o?.autoConsent) {
      c.skip(FLOW_RULES, "the code flow needs a user's consent in a browser: not run (--oauth-auto-consent declares a server that consents at once, for tests)");
      return;
    }
    const client = o.clientId && o.redirectUri ? { clientId: o.clientId, redirectUri: o.redirectUri, registered: false } : c.known("oauthClient");
    if (!client) {
      c.skip(FLOW_RULES, "no OAuth client: none registered and none given (--oauth-client-id with --oauth-redirect-uri)");
      return;
    }
    await run(new Flow(c, client));
  },
};

async function run(flow: Flow): Promise<void> {
  const c = flow.c;
  try {
    await errors(flow);

    // Success with every parameter (resource given explicitly): 303 with code, state, iss.
    const first = await flow.code("OAUTH-8", { resource: flow.resource });
    if (!first.code) {
      c.skip(FLOW_RULES, "the authorization request did not come back with a code");
      return;
    }
    c.expect(redirectQueryValid(first.back), "OAUTH-10", `the redirect query ${JSON.stringify(first.back)} is not the contract's (code, state, iss)`, first.ex);
    c.expect(first.ex.status === 303, "OAUTH-10", `a successful authorization answered ${first.ex.status}, not 303`, first.ex);
    c.expect(first.back!.state === first.state, "OAUTH-10", `state came back as ${JSON.stringify(first.back!.state)}, not unchanged (${first.state})`, first.ex);
    c.expect(first.back!.iss === flow.issuer, "OAUTH-10", `iss is ${JSON.stringify(first.back!.iss)}, not the issuer ${flow.issuer}`, first.ex);
    c.pass("OAUTH-8", "an authorization request with every parameter (resource explicit) was answered with a code");

    // No client secret: a valid code with a client_secret is refused.
    const secret = await flow.token({ grant_type: "authorization_code", code: first.code, redirect_uri: flow.client.redirectUri, code_verifier: first.verifier, client_secret: "conformance-secret" }, "OAUTH-3");
    c.target.deliberate(secret);
    if (secret.status === 200) {
      c.fail("OAUTH-3", "a code exchange with a client_secret was accepted; shared-secret methods are refused", secret);
      flow.tokens(secret, "OAUTH-3", `grant ${flow.c.next("oauth grant")}`);
    } else c.expect(secret.status === 400 || secret.status === 401, "OAUTH-3", `a code exchange with a client_secret answered ${secret.status}, not a refusal in the OAuth form`, secret);

    // invalid_grant: another code_verifier, another redirect_uri.
    const second = await flow.code("OAUTH-16");
    if (second.code) {
      const ex = await flow.token({ grant_type: "authorization_code", code: second.code, redirect_uri: flow.client.redirectUri, code_verifier: pkce().verifier }, "OAUTH-16");
      oauthError(c, ex, "invalid_grant", "OAUTH-16", "a code exchange with another code_verifier");
    }
    const third = await flow.code("OAUTH-16");
    if (third.code) {
      const ex = await flow.token({ grant_type: "authorization_code", code: third.code, redirect_uri: `${flow.client.redirectUri}/other`, code_verifier: third.verifier }, "OAUTH-16");
      oauthError(c, ex, "invalid_grant", "OAUTH-16", "a code exchange with another redirect_uri");
    }

    // The exchange and the token reply.
    const t = await flow.exchange(await flow.code("OAUTH-12"), "OAUTH-12", { resource: flow.resource });
    if (!t) {
      c.skip(["OAUTH-13", "OAUTH-14", "OAUTH-15", "ST-6", "AUTH-2", "EVT-7"], "the code exchange gave no tokens");
      return;
    }
    c.pass("OAUTH-12", "code, redirect_uri, code_verifier, client_id and resource exchanged for tokens");
    const asked = FLOW_SCOPE.split(" ");
    c.expect(t.scope.length > 0 && t.scope.every((s) => asked.includes(s)), "OAUTH-14", `the token reply's scope ${JSON.stringify(t.scope.join(" "))} is not within the scopes asked (${FLOW_SCOPE})`);
    if (flow.client.registered) c.expect(t.refresh !== undefined, "OAUTH-14", "no refresh_token for a client that has the refresh_token grant");
    c.expect(t.expiresIn > 0, "OAUTH-14", `expires_in is ${t.expiresIn}; the access token's lifetime in seconds`);
    await tokenChecks(c, t.access, t.scope, t.label);
    if (!t.refresh) {
      c.skip(["OAUTH-13", "OAUTH-15", "ST-6"], "the token reply has no refresh token");
      return;
    }
    await lifecycle(flow, t);
    await newConsent(flow);
    c.skip(["OAUTH-12", "OAUTH-13"], "private_key_jwt client assertions not exercised: the suite's client is public (none)");
    c.skip(["OAUTH-15"], "expiry of unused refresh tokens and the grant's absolute lifetime not exercised (their lengths are not shown); a used refresh token at the token route after the parallel window not tried (the window's length is not shown; on revoke, under ST-6)");
    c.skip(["OAUTH-17"], "a user's revocation in their profile cannot be done by a client");
    c.skip(["OAUTH-10"], "access_denied not provoked: it needs a user who declines, or an account without API access");
    c.skip(["AUTH-2"], "that the token is opaque, and valid only for {base_url}/v1, is not observable from one address");
    c.skip(["EVT-7"], "access withdrawn by a suspended account, lost API access or a lost scope not tried (a client cannot withdraw them)");
  } finally {
    await flow.cleanup();
  }
}

/** Errors of the authorization request go back to the application (the server reached them). */
async function errors(flow: Flow): Promise<void> {
  const cases: [Record<string, string | undefined>, string, string][] = [
    [{ scope: "conformance:no-such-scope" }, "invalid_scope", "no API scope"],
    [{ response_type: "token" }, "unsupported_response_type", "response_type token"],
    [{ code_challenge_method: "plain" }, "invalid_request", "code_challenge_method plain"],
    [{ code_challenge: undefined }, "invalid_request", "no code_challenge"],
    [{ resource: "https://conformance.invalid/v1" }, "invalid_target", "another resource"],
  ];
  for (const [changes, error, what] of cases) {
    const a = await authorize(flow.c, flow.client, FLOW_SCOPE, "OAUTH-10", changes);
    flow.c.target.deliberate(a.ex);
    flow.c.expect(
      a.ex.status === 303 && a.back?.error === error && Boolean(a.back.error_description) && a.back.code === undefined && a.back.state === a.state && redirectQueryValid(a.back),
      "OAUTH-10",
      `an authorization request with ${what} answered ${a.ex.status}${a.back ? ` back with ${JSON.stringify(a.back)}` : ""}; expected a 303 back with error=${error}, error_description and the state, no code`,
      a.ex,
    );
  }
}

/** Refresh, rotation, the parallel loser, revoke of one token, revoke of a used refresh token. */
async function lifecycle(flow: Flow, t: Tokens): Promise<void> {
  const c = flow.c;
  // Refresh narrowing the access token; the refresh token rotates.
  const narrow = "models:read";
  const grant = await flow.whoami(t, "ACC-2");
  const r1 = await flow.refresh(t, "OAUTH-13", { scope: narrow });
  if (!r1.next) return;
  c.expect(r1.next.scope.join(" ") === narrow, "OAUTH-13", `a refresh asking for scope ${narrow} answered scope ${JSON.stringify(r1.next.scope.join(" "))}`, r1.ex);
  const who = await flow.whoami(r1.next, "OAUTH-13");
  const held = Array.isArray(who.json?.scopes) ? who.json.scopes.join(" ") : undefined;
  c.expect(who.status === 200 && held === narrow, "OAUTH-13", `the narrowed access token holds ${JSON.stringify(held)} (whoami ${who.status}), not ${narrow}`, who);
  // key_id is the grant's id: the same for every token a refresh of the grant gives.
  if (grant.status === 200 && who.status === 200) c.expect(who.json?.key_id === grant.json?.key_id, "ACC-2", `whoami says key_id ${JSON.stringify(who.json?.key_id)} for a refreshed access token and ${JSON.stringify(grant.json?.key_id)} for the token of the same grant it was refreshed from; key_id is the grant's id`, who);
  c.expect(r1.next.refresh !== undefined && r1.next.refresh !== t.refresh, "OAUTH-15", "a refresh did not answer a new refresh token (rotation)", r1.ex);
  // The used refresh token again, right after: the parallel loser gets invalid_grant, the grant stays.
  const loser = await flow.refresh(t, "OAUTH-15", { expected: false });
  oauthError(c, loser.ex, "invalid_grant", "OAUTH-15", "the refresh token just used, presented again right after");
  const stays = await flow.whoami(r1.next, "OAUTH-15");
  c.expect(stays.status === 200, "OAUTH-15", `after a parallel refresh lost, the grant's newest access token answers ${stays.status} ${errorCodeOf(stays.json) ?? ""}; the grant stays`, stays);
  if (!r1.next.refresh) return;

  // Revoke one access token (a stream opened with it ends with `terminated`); the grant remains.
  const r2 = await flow.refresh(r1.next, "OAUTH-13");
  if (!r2.next) return;
  if (!c.expect(r2.next.refresh !== undefined && r2.next.refresh !== r1.next.refresh, "OAUTH-15", "a second refresh did not answer a new refresh token (rotation)", r2.ex)) return;
  const opened = await c.target.openStream({ key: r2.next.access, label: r2.next.label, rule: "EVT-7" }, {});
  const gone = await flow.revoke(r2.next.access, "access_token", "OAUTH-17");
  c.expect(gone.status === 200 && gone.text.length === 0, "OAUTH-17", `revoking an access token answered ${gone.status} with ${bodyShown(gone.text)}; expected 200 with an empty body`, gone);
  await flow.refused(r2.next, "OAUTH-17", "the revoked access token on /v1");
  await terminated(c, opened, r2.next);
  const r3 = await flow.refresh(r2.next, "OAUTH-17", { expected: false });
  c.expect(r3.ex.status === 200, "OAUTH-17", `after revoking one access token the grant's refresh token answered ${r3.ex.status} ${r3.ex.json?.error ?? ""}; only that token is revoked, the grant remains`, r3.ex);
  if (!r3.next) return;

  // A used refresh token presented on revoke revokes the whole grant.
  const reuse = await flow.revoke(r1.next.refresh, "refresh_token", "ST-6");
  c.expect(reuse.status === 200, "OAUTH-17", `revoking a used refresh token answered ${reuse.status}`, reuse);
  await flow.refused(r3.next, "ST-6", "the grant's newest access token after a used refresh token was presented on revoke");
  const dead = await flow.refresh(r3.next, "ST-6", { expected: false });
  oauthError(c, dead.ex, "invalid_grant", "ST-6", "the grant's newest refresh token after a used refresh token was presented on revoke");
  // The whole grant: every access token it gave before goes with it, not only the newest.
  await flow.refused(t, "ST-6", "the grant's first access token (used on /v1 before) after a used refresh token was presented on revoke");
  await flow.refused(r1.next, "ST-6", "the grant's narrowed access token (used on /v1 before) after a used refresh token was presented on revoke");
}

/**
 * A refresh narrows to scopes already granted, never widens: asking for one the grant
 * does not hold gives a token without it (or an OAuth error), by its reply and by whoami.
 */
async function noWidening(flow: Flow, t: Tokens): Promise<void> {
  const c = flow.c;
  const extra = vocabulary.find((s) => !t.scope.includes(s) && !s.startsWith("workflows:"));
  if (!t.refresh || !extra) return;
  const wider = await flow.refresh(t, "OAUTH-13", { scope: [...t.scope, extra].join(" "), expected: false });
  if (!wider.next) {
    c.expect(wider.ex.status >= 400 && typeof wider.ex.json?.error === "string", "OAUTH-13", `a refresh asking for ${extra} (not granted) answered ${wider.ex.status} without tokens or an OAuth error`, wider.ex);
    return;
  }
  const who = await flow.whoami(wider.next, "OAUTH-13");
  const held: string[] = Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
  c.expect(!wider.next.scope.includes(extra) && !held.includes(extra), "OAUTH-13", `a refresh asking for ${extra}, a scope the grant (${t.scope.join(" ")}) does not hold, gave a token with it (reply scope ${JSON.stringify(wider.next.scope.join(" "))}, whoami ${JSON.stringify(held.join(" "))}); a refresh only narrows`, who);
}

/** A new consent revokes the client's previous grant with its tokens; a used code is refused. */
async function newConsent(flow: Flow): Promise<void> {
  const c = flow.c;
  const a = await flow.code("ST-6");
  const older = await flow.exchange(a, "ST-6");
  const was = older ? await flow.whoami(older, "ACC-2") : undefined;
  const b = await flow.code("ST-6");
  const newer = await flow.exchange(b, "ST-6");
  if (!older || !newer) return;
  await flow.refused(older, "ST-6", "the access token of the previous grant after a new consent");
  if (older.refresh) {
    const ex = await flow.refresh(older, "ST-6", { expected: false });
    oauthError(c, ex.ex, "invalid_grant", "ST-6", "the refresh token of the previous grant after a new consent");
  }
  const live = await flow.whoami(newer, "ST-6");
  c.expect(live.status === 200, "ST-6", `the new grant's access token answered ${live.status} ${errorCodeOf(live.json) ?? ""}`, live);
  // A new consent is a new grant: its tokens name another grant id.
  if (was?.status === 200 && live.status === 200) c.expect(live.json?.key_id !== was.json?.key_id, "ACC-2", `the tokens of a new consent and of the grant it revoked both say key_id ${JSON.stringify(live.json?.key_id)}; key_id is the grant's id, and a new consent makes a new grant`, live);
  await noWidening(flow, newer);
  // The code of that consent, used once already.
  const again = await flow.token({ grant_type: "authorization_code", code: b.code, redirect_uri: flow.client.redirectUri, code_verifier: b.verifier }, "OAUTH-16");
  oauthError(c, again, "invalid_grant", "OAUTH-16", "a code exchanged a second time");
}