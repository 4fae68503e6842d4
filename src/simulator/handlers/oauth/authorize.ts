// GET /oauth/authorize (in the user's browser) and its consent form. Order of checks:
// 1. an unknown client_id or an unregistered redirect_uri is shown to the user (400 page,
//    or the envelope `invalid_request` for a caller asking for JSON), never redirected;
// 2. then errors go back to the application (303 with `error`, `error_description`,
//    `state`, `iss`): response_type, PKCE (S256 only), scope, resource;
// 3. the user signs in when the browser has no session (the sign-in form, 200);
// 4. an account without API access or suspended: `access_denied`, no screen;
// 5. remembered consent (not for native clients): the same or narrower scopes than the
//    client's active grant pass without the screen;
// 6. otherwise the consent screen: application name, return address, one checkbox per
//    scope. It posts to /site/oauth/consent; Allow with the scopes left checked creates
//    the client's one active grant (a previous grant of the client ends with its tokens).
import { scopes as vocabulary } from "../../../contract/tables.ts";
import { findClient, redirectMatches } from "../../domain/oauth/clients.ts";
import { activeGrant, makeCode, newGrant } from "../../domain/oauth/grants.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { headerOf, type Ctx, type Handler } from "../../pipeline/context.ts";
import type { Mount } from "../../pipeline/dispatch.ts";
import { SITE_GUARD } from "../../pipeline/guard.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import { escapeHtml, formFields, htmlPage, seeOther, wantsJson } from "../../pipeline/html.ts";
import type { ClientRecord, Code, Pending } from "../../state/oauth.ts";
import { randomToken } from "../../state/util.ts";
import { signInPage } from "../site.ts";

/** What each scope lets the application do, as the consent screen says it. */
const SCOPE_LABELS: Readonly<Record<string, string>> = {
  "me:read": "See your account: plan, credit balance, free quotas and limits",
  "models:read": "See the model catalog, help articles and price estimates",
  "generations:read": "See your generations, their results and status changes",
  "generations:write": "Start generations (spends your credits) and report results",
  "library:read": "See your library: uploaded references and folders",
  "library:write": "Rename, move and organise your library",
  "billing:read": "See your credit history and subscription",
  "support:read": "Read your support conversation",
  "support:write": "Send support messages on your behalf",
  "uploads:write": "Upload reference files",
  "workflows:read": "See your workflows",
  "workflows:write": "Change your workflows",
};

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const SINGLE = ["response_type", "client_id", "redirect_uri", "scope", "resource", "state", "code_challenge", "code_challenge_method"];

export function issuerOf(ctx: Ctx): string {
  return ctx.baseUrl;
}

/** Back to the application: `redirect_uri` with the answer's parameters added to its query. */
function backTo(ctx: Ctx, redirectUri: string, params: Record<string, string | null | undefined>): SimResponse {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.append(k, v);
  return seeOther(ctx, url.toString());
}

function backWithError(ctx: Ctx, redirectUri: string, state: string | null, error: string, description: string): SimResponse {
  return backTo(ctx, redirectUri, { error, error_description: description, state, iss: issuerOf(ctx) });
}

/** Shown to the user, not returned to the application. */
function shown(ctx: Ctx, message: string): SimResponse | Refusal {
  if (wantsJson(ctx)) return refuse("invalid_request", { message: `Cannot authorize: ${message}` });
  return htmlPage(ctx, 400, "Cannot authorize", `<h1>Cannot authorize</h1>\n<p>${escapeHtml(message)}</p>\n<p>Go back to the application and contact its developer.</p>`);
}

/** GET /oauth/authorize */
export const authorize: Handler = (ctx) => {
  const hub = ctx.hub;
  const o = hub.oauthOptions;
  const q = ctx.query;
  const s = hub.state.oauth;
  const now = hub.clock.now();
  const repeated = SINGLE.filter((name) => q.getAll(name).length > 1);
  const clientId = q.get("client_id");
  if (!clientId) return shown(ctx, "The request names no application (client_id is missing).");
  if (repeated.includes("client_id")) return shown(ctx, "client_id is given more than once.");
  const client = findClient(s, o, clientId, now);
  if (typeof client === "string") return shown(ctx, `Unknown application: ${client}.`);
  const redirectUri = q.get("redirect_uri");
  if (!redirectUri) return shown(ctx, "The request has no return address (redirect_uri is missing).");
  if (repeated.includes("redirect_uri") || !redirectMatches(client, redirectUri)) {
    return shown(ctx, `The return address ${redirectUri} is not registered for ${client.client_name ?? client.client_id}.`);
  }
  const state = q.get("state");
  const fail = (error: string, description: string) => backWithError(ctx, redirectUri, state, error, description);

  if (repeated.length > 0) return fail("invalid_request", `${repeated.join(", ")} given more than once`);
  const responseType = q.get("response_type");
  if (!responseType) return fail("invalid_request", "response_type is missing (only code is supported)");
  if (responseType !== "code") return fail("unsupported_response_type", `response_type ${responseType} is not supported: only code`);
  const method = q.get("code_challenge_method");
  const challenge = q.get("code_challenge");
  if (!challenge) return fail("invalid_request", "code_challenge is missing: PKCE with S256 is required");
  if (!method) return fail("invalid_request", "code_challenge_method is missing: only S256 is supported");
  if (method !== "S256") return fail("invalid_request", `code_challenge_method ${method} is not supported: only S256`);
  if (!PKCE_CHALLENGE.test(challenge)) return fail("invalid_request", "code_challenge must be BASE64URL(SHA256(code_verifier)): 43 characters");
  const requested = (q.get("scope") ?? "").split(" ").filter(Boolean);
  const scopes = [...new Set(requested.filter((x) => (vocabulary as readonly string[]).includes(x)))];
  if (scopes.length === 0) return fail("invalid_scope", "scope names no API scope");
  const resource = `${ctx.baseUrl}/v1`;
  const askedResource = q.get("resource");
  if (askedResource !== null && askedResource !== resource) return fail("invalid_target", `resource must be ${resource}`);

  const request = { client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge, resource };
  const success = (code: Code) => backTo(ctx, redirectUri, { code: code.code, state, iss: issuerOf(ctx) });
  // The test convenience: consent at once as the configured account.
  if (s.autoConsent !== null) {
    const account = hub.state.accounts.get(s.autoConsent);
    if (!account || !account.api_access || account.suspended) return fail("access_denied", "The account has no API access or is suspended");
    return success(makeCode(hub, o, request, newGrant(hub, o, account.id, client.client_id, scopes), scopes));
  }
  const session = hub.sessions.find(headerOf(ctx, "cookie"), now);
  if (!session) return signInPage(ctx, ctx.basePath + ctx.req.url, `Sign in to continue to ${client.client_name ?? client.client_id}`);
  const account = hub.state.accounts.get(session.account_id);
  if (!account || !account.api_access || account.suspended) return fail("access_denied", "The account has no API access or is suspended");
  if (!client.native) {
    const grant = activeGrant(s, account.id, client.client_id, now);
    if (grant && scopes.every((x) => grant.scopes.includes(x))) return success(makeCode(hub, o, request, grant, scopes));
  }
  const pending: Pending = {
    id: `cns_${randomToken(24)}`,
    client_id: client.client_id,
    account_id: account.id,
    redirect_uri: redirectUri,
    scopes,
    state,
    code_challenge: challenge,
    resource,
    issuer: issuerOf(ctx),
    expires_at: now + o.consentSeconds * 1000,
  };
  s.pending.set(pending.id, pending);
  return consentPage(ctx, client, pending);
};

function consentPage(ctx: Ctx, client: ClientRecord, pending: Pending): SimResponse {
  const name = client.client_name ?? client.client_id;
  const boxes = pending.scopes
    .map((scope) => `<label class="scope"><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked> <code>${escapeHtml(scope)}</code><small>${escapeHtml(SCOPE_LABELS[scope] ?? scope)}</small></label>`)
    .join("\n");
  const again = `${ctx.basePath}/site/sign-in?return_to=${encodeURIComponent(ctx.basePath + ctx.req.url)}`;
  const body = `<h1>Authorize <span id="app-name">${escapeHtml(name)}</span></h1>
<p class="who">Signed in as <code id="account">${escapeHtml(pending.account_id)}</code>. <a href="${escapeHtml(again)}">Not you?</a></p>
<p><strong>${escapeHtml(name)}</strong> asks for access to your Generation Hub account.${client.native ? " It runs on your device." : ""}</p>
<form method="post" action="${ctx.basePath}/site/oauth/consent">
<input type="hidden" name="consent_id" value="${escapeHtml(pending.id)}">
<fieldset><legend>Allow it to</legend>
${boxes}
</fieldset>
<p>After you decide, you go back to <code id="return-address">${escapeHtml(pending.redirect_uri)}</code>.</p>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
  return htmlPage(ctx, 200, `Authorize ${name}`, body);
}

/** POST /site/oauth/consent: the user's decision on the screen. */
function decide(ctx: Ctx): SimResponse | Refusal {
  const hub = ctx.hub;
  const o = hub.oauthOptions;
  const s = hub.state.oauth;
  const now = hub.clock.now();
  const form = formFields(ctx);
  const pending = form ? s.pending.get(form.get("consent_id") ?? "") : undefined;
  if (!form || !pending || pending.expires_at <= now) {
    if (pending) s.pending.delete(pending.id);
    return shown(ctx, "This authorization request is unknown or expired. Start again from the application.");
  }
  const session = hub.sessions.find(headerOf(ctx, "cookie"), now);
  if (!session || session.account_id !== pending.account_id) {
    const message = "You are signed in as another account than the one this authorization was started for.";
    if (wantsJson(ctx)) return refuse("access_denied", { message });
    return htmlPage(ctx, 403, "Cannot authorize", `<h1>Cannot authorize</h1>\n<p>${escapeHtml(message)}</p>\n<p>Start again from the application.</p>`);
  }
  s.pending.delete(pending.id);
  const client = findClient(s, o, pending.client_id, now);
  if (typeof client === "string") return shown(ctx, `Unknown application: ${client}.`);
  // The issuer is the address the authorization came in on.
  const back = (params: Record<string, string>) => backTo(ctx, pending.redirect_uri, { ...params, state: pending.state, iss: pending.issuer });
  const deny = (description: string) => back({ error: "access_denied", error_description: description });
  if (form.get("decision") !== "allow") return deny("The user declined");
  const checked = new Set(form.getAll("scope"));
  const scopes = pending.scopes.filter((x) => checked.has(x));
  if (scopes.length === 0) return deny("The user granted no scope");
  const account = hub.state.accounts.get(pending.account_id);
  if (!account || !account.api_access || account.suspended) return deny("The account has no API access or is suspended");
  const code = makeCode(hub, o, pending, newGrant(hub, o, account.id, client.client_id, scopes), scopes);
  return back({ code: code.code });
}

/** The consent form posts here (outside /v1; the browser's session cookie says who decides). */
export const consentMount: Mount = {
  prefix: "/site/oauth/",
  guard: SITE_GUARD,
  handle: (ctx) => {
    if (ctx.path === "/site/oauth/consent" && ctx.req.method === "POST") return decide(ctx);
    return refuse("not_found", { message: `No site page ${ctx.req.method} ${ctx.path}.` });
  },
};
