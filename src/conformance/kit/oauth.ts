// The OAuth client the suite is, without a browser: the token and revoke routes in their
// form encoding, registration, PKCE, an authorization request and where its redirect goes,
// the OAuth error form, and a client's tokens (a grant's codes exchanged, refreshed,
// revoked, left behind by none: `cleanup`). The OAuth checks hold the server to what these
// meet; the scope sweep takes an access token of one scope from here.
import { createHash, randomBytes } from "node:crypto";
import { scopes as vocabulary, validatorAt } from "../../contract/index.ts";
import { oauthFormRule } from "../judge/broken-rule.ts";
import type { AnyFact } from "../facts/learnt.ts";
import { bodyShown } from "./describe.ts";
import { randomToken } from "./ids.ts";
import { type Exchange, type RequestSpec } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

export const redirectQueryValid = validatorAt("#/paths/~1oauth~1authorize/get/responses/303/x-redirect-query");
const OAUTH_STATUS: Readonly<Record<string, number>> = { invalid_grant: 400, invalid_request: 400, invalid_client: 401, invalid_redirect_uri: 400, invalid_client_metadata: 400 };

function form(fields: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) q.set(k, v);
  return q.toString();
}

export async function oauthPost(c: CheckContext, path: "/oauth/token" | "/oauth/revoke", fields: Record<string, string | undefined>, rule: string, extra: Partial<RequestSpec> = {}): Promise<Exchange> {
  return c.request({ method: "POST", path, key: null, label: "oauth-client", raw: form(fields), rule, ...extra, headers: { "content-type": "application/x-www-form-urlencoded", ...extra.headers } });
}

/** The answer is the OAuth error form (`error`, `error_description`) with this `error` and its status. */
export function oauthError(c: CheckContext, ex: Exchange, error: string, rule: string, what: string): boolean {
  const got = typeof ex.json?.error === "string" ? ex.json.error : undefined;
  if (!c.expect(ex.status === OAUTH_STATUS[error] && got === error, rule, `${what}: expected ${OAUTH_STATUS[error]} ${error} in the OAuth form, got ${ex.status} ${got ?? `with ${bodyShown(ex.text)}`}`, ex)) return false;
  // The form itself (an error_description beside the error) is the rule of the route's OAuth form.
  return c.expect(typeof ex.json?.error_description === "string" && ex.json.error_description.length > 0, oauthFormRule(ex.operation?.operationId) ?? rule, `${what}: the OAuth error ${error} has no error_description`, ex);
}

export function register(c: CheckContext, metadata: Record<string, unknown>, rule: string): Promise<Exchange> {
  return c.post("/oauth/register", metadata, rule, { key: null, label: "oauth-client" });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export interface Authorized {
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

export async function authorize(c: CheckContext, client: { clientId: string; redirectUri: string }, scope: string, rule: string, changes: Record<string, string | undefined> = {}): Promise<Authorized> {
  const { verifier, challenge } = pkce();
  const state = `conformance-${randomToken()}`;
  // Never through `prism proxy`: Prism follows the 303 to the redirect address itself.
  const ex = await c.get(authorizePath(client, scope, challenge, state, changes), rule, { key: null, label: "browser", direct: true });
  return { ex, back: backTo(ex, client.redirectUri), verifier, state };
}

/** A refusal shown to the user: 4xx, and no redirect to the address given. */
export function shownToUser(c: CheckContext, ex: Exchange, redirect: string, rule: string, what: string): void {
  const location = ex.headers.get("location") ?? "";
  c.expect(ex.status >= 400 && ex.status < 500 && !location.startsWith(redirect.split("?")[0]!), rule, `${what}: answered ${ex.status}${location ? ` to ${location}` : ""}; it is refused at once, without sending the browser there`, ex);
}


/** A scope the suite asks for in the code flow (all four in the vocabulary). */
export const FLOW_SCOPE = ["me:read", "models:read", "generations:read", "billing:read"].filter((s) => vocabulary.includes(s)).join(" ");

export interface Tokens {
  access: string;
  refresh?: string;
  scope: string[];
  expiresIn: number;
  /** Label of the grant's requests (each grant has its own rate window). */
  label: string;
}

/** The facts a `Flow` and `scopedToken` read: a check that makes one uses them (`needs.uses`). */
export const OAUTH_FACTS: readonly AnyFact[] = ["oauthServer", "oauthClient"];

export class Flow {
  readonly issued: Tokens[] = [];
  readonly issuer: string;
  readonly resource: string;

  constructor(readonly c: CheckContext, readonly client: { clientId: string; redirectUri: string; registered: boolean }) {
    const server = c.known("oauthServer");
    this.issuer = server?.issuer ?? c.settings.baseUrl;
    this.resource = server?.resource ?? `${c.settings.baseUrl}/v1`;
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
    return this.tokens(ex, rule, `grant ${this.c.next("oauth grant")}`);
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
  /** Leaves no live token behind (revoking an already revoked one answers 200 too). */
  async cleanup(): Promise<void> {
    for (const t of this.issued.splice(0)) {
      if (t.refresh) await this.revoke(t.refresh, "refresh_token", "OAUTH-17");
      await this.revoke(t.access, "access_token", "OAUTH-17");
    }
  }
}

/**
 * A code flow the server consents to at once, with the client given (`--oauth-client-id`)
 * or the suite's own: with auto-consent declared and writes allowed, else undefined.
 */
export function consentFlow(c: CheckContext): Flow | undefined {
  const o = c.settings.options.oauth;
  const client = o?.clientId && o.redirectUri ? { clientId: o.clientId, redirectUri: o.redirectUri, registered: false } : c.known("oauthClient");
  if (!o?.autoConsent || !c.settings.writes || !client) return undefined;
  return new Flow(c, client);
}

/**
 * An access token of `scope` alone, from a new consent of the suite's OAuth client (with
 * auto-consent declared and writes allowed), and how to revoke it; undefined when the run
 * cannot have one.
 */
export async function scopedToken(c: CheckContext, scope: string): Promise<{ token: string; label: string; revoke(): Promise<void> } | undefined> {
  const flow = consentFlow(c);
  if (!flow) return undefined;
  const t = await flow.exchange(await flow.code("OAUTH-10", {}, "OAUTH-10", scope), "OAUTH-12");
  if (!t) {
    await flow.cleanup();
    return undefined;
  }
  return { token: t.access, label: t.label, revoke: () => flow.cleanup() };
}
