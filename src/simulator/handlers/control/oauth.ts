// /_sim/oauth/...: what the simulator's authorization server holds, and what the user
// and the network would do to it: documents published at https addresses (the simulator
// does not reach the network), clients, grants as the user's profile shows them (revoke,
// narrow, a spend limit), and auto-consent for scripts and tests.
import { scopes as vocabulary } from "../../../contract/tables.ts";
import { documentAddressProblem, registrationReply } from "../../domain/oauth/clients.ts";
import { grantSpent, revokeGrant } from "../../domain/oauth/grants.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json, type Ctx } from "../../pipeline/context.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import type { HubBase } from "../../state/base.ts";
import type { ClientRecord, Grant, OAuthState, Published } from "../../state/oauth.ts";
import { isoTime } from "../../state/util.ts";
import { controlBody, invalid, type ControlHandler, type ControlRoutes } from "./body.ts";

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

function publishDocument(ctx: Ctx): SimResponse | Refusal {
  const s = ctx.hub.state.oauth;
  const b = controlBody(ctx);
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
  return json(ctx, existed ? 200 : 201, { ...publishedView(published), client_id_problem: problem ?? null });
}

function changeGrant(ctx: Ctx, grant: Grant): Refusal | undefined {
  const hub = ctx.hub;
  const b = controlBody(ctx);
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
  return undefined;
}

/** What is done to the grant `{id}`; answers the grant as it is then. */
function grantAt(change?: (ctx: Ctx, grant: Grant) => Refusal | undefined): ControlHandler {
  return (ctx, { id }) => {
    const s = ctx.hub.state.oauth;
    const grant = s.grants.get(id!);
    if (!grant) return refuse("not_found", { message: "No such grant." });
    return change?.(ctx, grant) ?? json(ctx, 200, grantView(ctx.hub, s, grant));
  };
}

/** /_sim/oauth/...: published documents, clients, grants (the user's profile), auto-consent. */
export const oauthControl: ControlRoutes = {
  "GET oauth": (ctx) => {
    const s = ctx.hub.state.oauth;
    return json(ctx, 200, {
      auto_consent: s.autoConsent,
      clients: [...s.clients.values()].map(clientView),
      grants: [...s.grants.values()].map((g) => grantView(ctx.hub, s, g)),
      documents: [...s.documents.values()].map(publishedView),
    });
  },
  "GET oauth/clients": (ctx) => json(ctx, 200, { data: [...ctx.hub.state.oauth.clients.values()].map(clientView) }),
  "GET oauth/documents": (ctx) => json(ctx, 200, { data: [...ctx.hub.state.oauth.documents.values()].map(publishedView) }),
  "PUT oauth/documents": publishDocument,
  "DELETE oauth/documents": (ctx) => {
    const documents = ctx.hub.state.oauth.documents;
    const url = ctx.query.get("url");
    if (url) documents.delete(url);
    else documents.clear();
    return json(ctx, 200, { data: [...documents.values()].map(publishedView) });
  },
  // Forget the cached copies of documents: the next use downloads (reads) them again.
  "DELETE oauth/cache": (ctx) => {
    const clients = ctx.hub.state.oauth.clients;
    for (const [key, c] of clients) if (c.source === "document") clients.delete(key);
    return json(ctx, 200, { forgotten: true });
  },
  "POST oauth/auto-consent": (ctx) => {
    const b = controlBody(ctx);
    if (isRefusal(b)) return b;
    const account = b.account_id;
    if (account !== null && (typeof account !== "string" || !ctx.hub.state.accounts.has(account))) return invalid("account_id", "account_id is an account id, or null to turn auto-consent off", "not_allowed");
    ctx.hub.state.oauth.autoConsent = account;
    return json(ctx, 200, { auto_consent: account });
  },
  "GET oauth/grants": (ctx) => {
    const s = ctx.hub.state.oauth;
    const account = ctx.query.get("account_id");
    return json(ctx, 200, { data: [...s.grants.values()].filter((g) => !account || g.account_id === account).map((g) => grantView(ctx.hub, s, g)) });
  },
  "GET oauth/grants/{id}": grantAt(),
  // The user revokes the application in their profile: at once, with all its tokens.
  "POST oauth/grants/{id}/revoke": grantAt((ctx, grant) => void revokeGrant(ctx.hub, grant, "revoked by the user")),
  "PATCH oauth/grants/{id}": grantAt(changeGrant),
};
