// The site session cookie (simulator conventions: the seed shows neither the cookie's
// name nor how it is obtained). Signing in gives the cookie `gh_session`; `/v1` then
// accepts it like the site would:
// - mutating requests (POST, PUT, PATCH, DELETE) need an `Origin` on the allowlist, else
//   403 `origin_mismatch`, refused before the rate limiter (no RateLimit pair);
// - one account-owned window (policy `account`, its own counter): the keys' `default`
//   and `account` windows are not spent and do not apply;
// - no scopes: every route that lists the session scheme is open to it, and the
//   subscription actions accept nothing else.
// The sign-in pages are handlers/site.ts; the records are state/sessions.ts.
import { scopes as allScopes } from "../../contract/tables.ts";
import type { HubBase } from "../state/base.ts";
import { SESSION_COOKIE, type Session, type SessionOptions } from "../state/sessions.ts";
import { isoTime, randomToken } from "../state/util.ts";
import type { Credential, CredentialResolver } from "./credentials.ts";
import { changes, isLoopbackOrigin, originOf } from "./origins.ts";
import { refuse, type Refusal } from "./refusal.ts";

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class SessionStore {
  readonly ttlMs: number;
  constructor(
    readonly hub: HubBase,
    readonly options: SessionOptions,
    /** The session window's quota when `options.quota` is not set: the account quota. */
    readonly accountQuota: number,
  ) {
    this.ttlMs = (options.ttlSeconds ?? 7 * 86_400) * 1000;
  }

  originAllowed(origin: string | undefined, baseUrl: string): boolean {
    if (!origin || origin === "null") return false;
    if (baseUrl && origin === originOf(baseUrl)) return true;
    const list = this.options.allowedOrigins;
    if (!list) return isLoopbackOrigin(origin);
    return list.includes("*") || list.includes(origin);
  }

  /** The session a Cookie header names, if it is live. */
  find(cookieHeader: string | undefined, now: number): Session | undefined {
    const secret = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!secret) return undefined;
    const all = this.hub.state.sessions;
    const session = all.get(secret);
    if (!session) return undefined;
    if (session.expires_at <= now) {
      all.delete(secret);
      return undefined;
    }
    return session;
  }

  start(accountId: string): Session {
    const now = this.hub.clock.now();
    this.#sweep(now);
    const session: Session = { id: this.hub.ids.next("ses_", now), secret: `ghs_${randomToken(32)}`, account_id: accountId, created_at: now, expires_at: now + this.ttlMs };
    this.hub.state.sessions.set(session.secret, session);
    return session;
  }

  /** Simulated time of the next look for expired sessions. */
  #nextSweep = 0;

  /** Forgets expired sessions (a sign-in per test run would otherwise pile up for 7 days), at most hourly. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 3_600_000;
    for (const [secret, session] of this.hub.state.sessions) if (session.expires_at <= now) this.hub.state.sessions.delete(secret);
  }

  /** Ends a session; its open event streams get `terminated` (401 unauthorized). */
  end(session: Session): void {
    this.hub.state.sessions.delete(session.secret);
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
          admit: (method, origin, baseUrl): Refusal | undefined => {
            if (!changes(method)) return undefined;
            if (this.originAllowed(origin, baseUrl)) return undefined;
            return refuse("origin_mismatch", { message: origin ? `The Origin ${origin} is not allowed for session requests that change something.` : "A session request that changes something needs an Origin header." });
          },
          window: { counter: `session:${session.account_id}`, policy: "account", quota: this.options.quota ?? this.accountQuota },
        };
        return credential;
      },
    };
  }

  /** The cookie for `path` (a sandbox's base path, else `/`): the browser sends it to that hub only. */
  cookieHeader(session: Session, path = "/"): string {
    return `${SESSION_COOKIE}=${session.secret}; Path=${path}; HttpOnly; SameSite=Lax`;
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
}
