// The site session cookie (simulator conventions: the seed shows neither the cookie's
// name nor how it is obtained). `POST /site/sign-in` with an account id or an API key of
// the account sets the cookie `gh_session`; `/v1` then accepts it like the site would:
// - mutating requests (POST, PUT, PATCH, DELETE) need an `Origin` on the allowlist, else
//   403 `origin_mismatch`, refused before the rate limiter (no RateLimit pair);
// - one account-owned window (policy `account`, its own counter): the keys' `default`
//   and `account` windows are not spent and do not apply;
// - no scopes: every route that lists the session scheme is open to it, and the
//   subscription actions accept nothing else.
import { scopes as allScopes } from "../../contract/index.ts";
import { headerOf, isRefusal, json, type Ctx } from "../pipeline/context.ts";
import type { Credential, CredentialResolver } from "./credentials.ts";
import { refuse, type Refusal } from "./refusal.ts";
import type { SimRequest, SimResponse } from "../pipeline/exchange.ts";
import { escapeHtml, formFields, htmlPage, seeOther, wantsJson } from "../pipeline/html.ts";
import type { Hub } from "../hub.ts";
import { isoTime, randomToken } from "../state/util.ts";

export const SESSION_COOKIE = "gh_session";

export interface SessionOptions {
  /**
   * Origins allowed on mutating session requests besides the simulator's own address.
   * Default: any loopback origin (`http(s)://localhost`, `127.0.0.1`, `[::1]`, any port).
   * A list replaces that default (`*` allows any origin).
   */
  allowedOrigins?: readonly string[];
  /** Simulated seconds a session lasts (default 7 days). */
  ttlSeconds?: number;
  /** Requests per window of the account-owned session window (default: the account quota). */
  quota?: number;
}

export interface Session {
  /** Public id (whoami `key_id`, control interface). */
  id: string;
  /** The cookie's value. */
  secret: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}

const KEY = "sessions";
const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

export function sessionsOf(hub: Hub): Map<string, Session> {
  let map = hub.state.extensions.get(KEY) as Map<string, Session> | undefined;
  if (!map) {
    map = new Map();
    hub.state.extensions.set(KEY, map);
  }
  return map;
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export class SessionSide {
  readonly ttlMs: number;
  constructor(
    readonly hub: Hub,
    readonly options: SessionOptions = {},
  ) {
    this.ttlMs = (options.ttlSeconds ?? 7 * 86_400) * 1000;
  }

  originAllowed(origin: string | undefined, baseUrl: string): boolean {
    if (!origin || origin === "null") return false;
    if (baseUrl && origin === originOf(baseUrl)) return true;
    const list = this.options.allowedOrigins;
    if (!list) return LOOPBACK_ORIGIN.test(origin);
    return list.includes("*") || list.includes(origin);
  }

  /** The session a Cookie header names, if it is live. */
  find(cookieHeader: string | undefined, now: number): Session | undefined {
    const secret = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!secret) return undefined;
    const session = sessionsOf(this.hub).get(secret);
    if (!session) return undefined;
    if (session.expires_at <= now) {
      sessionsOf(this.hub).delete(secret);
      return undefined;
    }
    return session;
  }

  start(accountId: string): Session {
    const now = this.hub.clock.now();
    const session: Session = { id: this.hub.ids.next("ses_", now), secret: `ghs_${randomToken(32)}`, account_id: accountId, created_at: now, expires_at: now + this.ttlMs };
    sessionsOf(this.hub).set(session.secret, session);
    return session;
  }

  /** Ends a session; its open event streams get `terminated` (401 unauthorized). */
  end(session: Session): void {
    sessionsOf(this.hub).delete(session.secret);
    this.hub.recheckStreams();
  }

  resolver(): CredentialResolver {
    return {
      cookie: (header, now) => {
        const session = this.find(header, now);
        if (!session) return undefined;
        const credential: Credential = {
          channel: "session",
          keyId: session.id,
          accountId: session.account_id,
          scopes: allScopes,
          admit: (req: SimRequest, baseUrl: string): Refusal | undefined => {
            if (!MUTATING.has(req.method)) return undefined;
            const origin = req.headers.origin;
            const value = Array.isArray(origin) ? origin[0] : origin;
            if (this.originAllowed(value, baseUrl)) return undefined;
            return refuse("origin_mismatch", { message: value ? `The Origin ${value} is not allowed for session requests that change something.` : "A session request that changes something needs an Origin header." });
          },
          window: { counter: `session:${session.account_id}`, policy: "account", quota: this.options.quota ?? this.hub.limiter.config.accountQuota },
        };
        return credential;
      },
    };
  }

  cookieHeader(session: Session): string {
    return `${SESSION_COOKIE}=${session.secret}; Path=/; HttpOnly; SameSite=Lax`;
  }

  view(session: Session) {
    return {
      session_id: session.id,
      account_id: session.account_id,
      cookie_name: SESSION_COOKIE,
      cookie: `${SESSION_COOKIE}=${session.secret}`,
      created_at: isoTime(session.created_at),
      expires_at: isoTime(session.expires_at),
    };
  }

  // -------------------------------------------------------------------------
  // /site/: sign-in, sign-out, the signed-in page

  site(ctx: Ctx): SimResponse | Refusal {
    const method = ctx.req.method;
    const path = ctx.path.replace(/\/+$/, "") || "/site";
    const now = this.hub.clock.now();
    const session = this.find(headerOf(ctx, "cookie"), now);
    if (path === "/site" && method === "GET") return this.#home(ctx, session);
    if (path === "/site/sign-in" && method === "GET") return this.signInPage(ctx, ctx.query.get("return_to") ?? "", "Sign in to Generation Hub");
    if (path === "/site/sign-in" && method === "POST") return this.#signIn(ctx);
    if (path === "/site/sign-out" && method === "POST") {
      if (session) this.end(session);
      const clear = { "set-cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` };
      if (wantsJson(ctx) || (headerOf(ctx, "content-type") ?? "").startsWith("application/json")) return json(ctx, 200, { signed_out: true }, clear);
      return seeOther(ctx, "/site/", clear);
    }
    return refuse("not_found", { message: `No site page ${method} ${ctx.path}.` });
  }

  #home(ctx: Ctx, session: Session | undefined): SimResponse {
    if (wantsJson(ctx)) return json(ctx, 200, session ? this.view(session) : { signed_in: false });
    const body = session
      ? `<h1>Generation Hub (simulator)</h1><p>Signed in as <code>${escapeHtml(session.account_id)}</code>.</p>` +
        `<form method="post" action="/site/sign-out"><button type="submit">Sign out</button></form>`
      : `<h1>Generation Hub (simulator)</h1><p>Not signed in. <a href="/site/sign-in">Sign in</a></p>`;
    return htmlPage(ctx, 200, "Generation Hub", body);
  }

  /** The sign-in form (a demo account picker); it posts to /site/sign-in and returns to `returnTo`. */
  signInPage(ctx: Ctx, returnTo: string, heading: string, error?: string, status = 200): SimResponse {
    const accounts = [...this.hub.state.accounts.keys()];
    const options = accounts.map((id, i) => `<label><input type="radio" name="account_id" value="${escapeHtml(id)}"${i === 0 ? " checked" : ""}> <code>${escapeHtml(id)}</code></label>`).join("\n");
    const body = `<h1>${escapeHtml(heading)}</h1>
<p class="who">Simulator sign-in: pick a demo account (no password).</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/site/sign-in">
<input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<fieldset><legend>Account</legend>
${options}
</fieldset>
<button type="submit" name="sign_in" value="1">Sign in</button>
</form>`;
    return htmlPage(ctx, status, "Sign in", body);
  }

  #signIn(ctx: Ctx): SimResponse | Refusal {
    const form = formFields(ctx);
    const asJson = wantsJson(ctx) || (headerOf(ctx, "content-type") ?? "").startsWith("application/json");
    const fail = (message: string, field: string) =>
      asJson ? refuse("invalid_request", { details: [{ field, reason: "invalid", message }] }) : this.signInPage(ctx, form?.get("return_to") ?? "", "Sign in to Generation Hub", message, 400);
    if (!form) return fail("The body must be a form (application/x-www-form-urlencoded) or a JSON object.", "Content-Type");
    let accountId = form.get("account_id") ?? undefined;
    const apiKey = form.get("api_key");
    if (!accountId && apiKey) accountId = this.hub.state.keys.get(apiKey)?.account_id;
    if (!accountId) return fail(apiKey ? "No such API key." : "account_id (or api_key) is required.", apiKey ? "api_key" : "account_id");
    if (!this.hub.state.accounts.has(accountId)) return fail(`No account ${accountId}.`, "account_id");
    const session = this.start(accountId);
    const cookie = { "set-cookie": this.cookieHeader(session) };
    if (asJson) return json(ctx, 200, this.view(session), cookie);
    return seeOther(ctx, safeReturn(form.get("return_to")) ?? "/site/", cookie);
  }

  // -------------------------------------------------------------------------
  // /_sim/sessions

  control(ctx: Ctx, parts: readonly string[], body: () => Record<string, unknown> | Refusal): SimResponse | Refusal | undefined {
    if (parts[0] !== "sessions") return undefined;
    const method = ctx.req.method;
    const all = sessionsOf(this.hub);
    if (parts.length === 1 && method === "GET") return json(ctx, 200, { data: [...all.values()].map((s) => this.view(s)) });
    if (parts.length === 1 && method === "POST") {
      const b = body();
      if (isRefusal(b)) return b;
      const accountId = typeof b.account_id === "string" ? b.account_id : "acc_demo";
      if (!this.hub.state.accounts.has(accountId)) return refuse("invalid_request", { details: [{ field: "account_id", reason: "not_allowed", message: "no such account" }] });
      return json(ctx, 201, this.view(this.start(accountId)));
    }
    if (parts.length === 2 && (method === "DELETE" || method === "GET")) {
      const session = [...all.values()].find((s) => s.id === parts[1] || s.secret === parts[1]);
      if (!session) return refuse("not_found", { message: "No such session." });
      if (method === "DELETE") this.end(session);
      return json(ctx, 200, { ...this.view(session), ended: method === "DELETE" });
    }
    return undefined;
  }
}

/** A return address after sign-in: a path on this server only (no open redirect). */
export function safeReturn(value: string | null | undefined): string | undefined {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return undefined;
  return value;
}
