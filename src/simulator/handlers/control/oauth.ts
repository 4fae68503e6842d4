// /_sim/oauth/...: what the simulator's authorization server holds, and what the user
// and the network would do to it: documents published at https addresses (the simulator
// does not reach the network), clients, grants as the user's profile shows them (revoke,
// narrow, a spend limit), and auto-consent for scripts and tests.
import { scopes as vocabulary } from "../../../contract/tables.ts";
import { documentAddressProblem, registrationReply } from "../../domain/oauth/clients.ts";
import { grantSpent, revokeGrant } from "../../domain/oauth/grants.ts";
import { refuse } from "../../domain/refusal.ts";
import { isRefusal, json } from "../../pipeline/context.ts";
import type { HubBase } from "../../state/base.ts";
import type { ClientRecord, Grant, OAuthState, Published } from "../../state/oauth.ts";
import { isoTime } from "../../state/util.ts";
import { invalid, type ControlRoute } from "./body.ts";

function clientView(c: ClientRecord) {
  return { ...(c.source === "registered" ? registrationReply(c) : { client_id: c.client_id, client_name: c.client_name, redirect_uris: c.redirect_uris }), source: c.source, native: c.native, cached_until: c.cached_until === undefined ? undefined : isoTime(c.cached_until) };
}

function grantView(hub: HubBase, s: OAuthState, g: Grant) {
  const now = hub.clock.now();
  let access = 0;
  let refresh = 0;
  for (const t of s.access.values()) if (t.grant_id === g.id && !t.revoked && t.expires_at > now) access++;
  for (const t of s.refresh.values()) if (t.grant_id === g.id && !t.revoked && t.used_at === null && t.expires_at > now) refresh++;
  return {
    id: g.id,
    client_id: g.client_id,
    account_id: g.account_id,
    scopes: g.scopes,
    created_at: isoTime(g.created_at),
    expires_at: isoTime(g.expires_at),
    active: g.revoked_at === null && g.expires_at > now,
    revoked_at: g.revoked_at === null ? null : isoTime(g.revoked_at),
    revoked_reason: g.revoked_reason,
    spend_limit_cc: g.spend_limit_cc,
    spent_cc: grantSpent(hub.state, g),
    live_access_tokens: access,
    live_refresh_tokens: refresh,
  };
}

function publishedView(p: Published) {
  return { url: p.url, status: p.status, content_type: p.content_type, cache_control: p.cache_control, expires: p.expires, location: p.location, bytes: new TextEncoder().encode(p.body).length };
}

/** /_sim/oauth/...: published documents, clients, grants (the user's profile), auto-consent. */
export const oauthControl: ControlRoute = (ctx, parts, body) => {
  if (parts[0] !== "oauth") return undefined;
  const hub = ctx.hub;
  const s = hub.state.oauth;
  const method = ctx.req.method;
  const ok = (value: unknown, status = 200) => json(ctx, status, value);
  const [, what, id, action] = parts;
  if (what === undefined && method === "GET") {
    return ok({
      auto_consent: s.autoConsent,
      clients: [...s.clients.values()].map(clientView),
      grants: [...s.grants.values()].map((g) => grantView(hub, s, g)),
      documents: [...s.documents.values()].map(publishedView),
    });
  }
  if (what === "clients" && id === undefined && method === "GET") return ok({ data: [...s.clients.values()].map(clientView) });

  if (what === "documents" && id === undefined) {
    if (method === "GET") return ok({ data: [...s.documents.values()].map(publishedView) });
    if (method === "PUT") {
      const b = body();
      if (isRefusal(b)) return b;
      if (typeof b.url !== "string") return invalid("url", "url is the https address the document is published at", "required");
      const problem = documentAddressProblem(b.url);
      // A jwks_uri needs only https; a client_id address follows every rule of the seed.
      if (!b.url.startsWith("https://")) return invalid("url", problem ?? "the address must be https", "bad_format");
      const status = b.status ?? 200;
      if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) return invalid("status", "status is an HTTP status code", "out_of_range");
      let text: string;
      if (typeof b.body === "string") text = b.body;
      else if (b.document !== undefined) text = JSON.stringify(b.document);
      else return invalid("document", "document (a JSON value) or body (raw text) is required", "required");
      const published: Published = {
        url: b.url,
        status: status as number,
        body: text,
        content_type: typeof b.content_type === "string" ? b.content_type : "application/json",
        cache_control: typeof b.cache_control === "string" ? b.cache_control : null,
        expires: typeof b.expires === "string" ? b.expires : null,
        location: typeof b.location === "string" ? b.location : null,
      };
      const existed = s.documents.has(b.url);
      s.documents.set(b.url, published);
      return ok({ ...publishedView(published), client_id_problem: problem ?? null }, existed ? 200 : 201);
    }
    if (method === "DELETE") {
      const url = ctx.query.get("url");
      if (url) s.documents.delete(url);
      else s.documents.clear();
      return ok({ data: [...s.documents.values()].map(publishedView) });
    }
  }
  if (what === "cache" && id === undefined && method === "DELETE") {
    // Forget the cached copies of documents: the next use downloads (reads) them again.
    for (const [key, c] of s.clients) if (c.source === "document") s.clients.delete(key);
    return ok({ forgotten: true });
  }
  if (what === "auto-consent" && id === undefined && method === "POST") {
    const b = body();
    if (isRefusal(b)) return b;
    const account = b.account_id;
    if (account !== null && (typeof account !== "string" || !hub.state.accounts.has(account))) return invalid("account_id", "account_id is an account id, or null to turn auto-consent off", "not_allowed");
    s.autoConsent = account;
    return ok({ auto_consent: s.autoConsent });
  }
  if (what === "grants") {
    if (id === undefined && method === "GET") {
      const account = ctx.query.get("account_id");
      return ok({ data: [...s.grants.values()].filter((g) => !account || g.account_id === account).map((g) => grantView(hub, s, g)) });
    }
    const grant = id === undefined ? undefined : s.grants.get(id);
    if (id !== undefined && !grant) return refuse("not_found", { message: "No such grant." });
    if (grant && action === undefined && method === "GET") return ok(grantView(hub, s, grant));
    if (grant && action === "revoke" && method === "POST") {
      // The user revokes the application in their profile: at once, with all its tokens.
      revokeGrant(hub, grant, "revoked by the user");
      return ok(grantView(hub, s, grant));
    }
    if (grant && action === undefined && method === "PATCH") {
      const b = body();
      if (isRefusal(b)) return b;
      if ("spend_limit_cc" in b) {
        const v = b.spend_limit_cc;
        if (v !== null && !Number.isSafeInteger(v)) return invalid("spend_limit_cc", "spend_limit_cc must be an integer or null", "wrong_type");
        grant.spend_limit_cc = v as number | null;
      }
      if ("spent_cc" in b) {
        if (!Number.isSafeInteger(b.spent_cc)) return invalid("spent_cc", "spent_cc must be an integer", "wrong_type");
        // What it has spent in total: the part the simulator does not count from generations.
        grant.spent_base_cc = (b.spent_cc as number) - (grantSpent(hub.state, grant) - grant.spent_base_cc);
      }
      if ("scopes" in b) {
        const list = b.scopes;
        if (!Array.isArray(list) || list.some((x) => !(vocabulary as readonly string[]).includes(x as string))) return invalid("scopes", "scopes must be scopes of the vocabulary", "not_allowed");
        // The user narrows what the application may do: its tokens lose the rest at once.
        grant.scopes = grant.scopes.filter((x) => (list as string[]).includes(x));
        hub.recheckStreams();
      }
      return ok(grantView(hub, s, grant));
    }
  }
  return undefined;
};
