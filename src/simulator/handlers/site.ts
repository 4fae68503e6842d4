// The site's own pages under /site/ (simulator conveniences; the seed shows neither the
// cookie's name nor how it is obtained): the sign-in form (a demo account picker, no
// password), the signed-in page and sign-out. `POST /site/sign-in` with an account id
// or an API key of the account sets the session cookie (domain/sessions.ts).
import { SESSION_COOKIE, type Session } from "../state/sessions.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import { headerOf, json, type Ctx } from "../pipeline/context.ts";
import type { SimResponse } from "../pipeline/exchange.ts";
import { escapeHtml, formFields, htmlPage, seeOther, wantsJson } from "../pipeline/html.ts";
import type { Mount } from "../pipeline/dispatch.ts";
import { SITE_GUARD } from "../pipeline/guard.ts";

export const siteMount: Mount = { prefix: "/site/", handle: site, guard: SITE_GUARD };

function site(ctx: Ctx): SimResponse | Refusal {
  const sessions = ctx.hub.sessions;
  const method = ctx.req.method;
  const path = ctx.path.replace(/\/+$/, "") || "/site";
  const now = ctx.hub.clock.now();
  const session = sessions.find(headerOf(ctx, "cookie"), now);
  if (path === "/site" && method === "GET") return home(ctx, session);
  if (path === "/site/sign-in" && method === "GET") return signInPage(ctx, ctx.query.get("return_to") ?? "", "Sign in to Generation Hub");
  if (path === "/site/sign-in" && method === "POST") return signIn(ctx);
  if (path === "/site/sign-out" && method === "POST") {
    if (session) sessions.end(session);
    const clear = { "set-cookie": `${SESSION_COOKIE}=; Path=${ctx.basePath}/; HttpOnly; SameSite=Lax; Max-Age=0` };
    if (wantsJson(ctx) || (headerOf(ctx, "content-type") ?? "").startsWith("application/json")) return json(ctx, 200, { signed_out: true }, clear);
    return seeOther(ctx, `${ctx.basePath}/site/`, clear);
  }
  return refuse("not_found", { message: `No site page ${method} ${ctx.path}.` });
}

function home(ctx: Ctx, session: Session | undefined): SimResponse {
  if (wantsJson(ctx)) return json(ctx, 200, session ? ctx.hub.sessions.view(session) : { signed_in: false });
  const body = session
    ? `<h1>Generation Hub (simulator)</h1><p>Signed in as <code>${escapeHtml(session.account_id)}</code>.</p>` +
      `<form method="post" action="${ctx.basePath}/site/sign-out"><button type="submit">Sign out</button></form>`
    : `<h1>Generation Hub (simulator)</h1><p>Not signed in. <a href="${ctx.basePath}/site/sign-in">Sign in</a></p>`;
  return htmlPage(ctx, 200, "Generation Hub", body);
}

/** The sign-in form (a demo account picker); it posts to /site/sign-in and returns to `returnTo`. */
export function signInPage(ctx: Ctx, returnTo: string, heading: string, error?: string, status = 200): SimResponse {
  const accounts = [...ctx.hub.state.accounts.keys()];
  const options = accounts.map((id, i) => `<label><input type="radio" name="account_id" value="${escapeHtml(id)}"${i === 0 ? " checked" : ""}> <code>${escapeHtml(id)}</code></label>`).join("\n");
  const body = `<h1>${escapeHtml(heading)}</h1>
<p class="who">Simulator sign-in: pick a demo account (no password).</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="${ctx.basePath}/site/sign-in">
<input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<fieldset><legend>Account</legend>
${options}
</fieldset>
<button type="submit" name="sign_in" value="1">Sign in</button>
</form>`;
  return htmlPage(ctx, status, "Sign in", body);
}

function signIn(ctx: Ctx): SimResponse | Refusal {
  const hub = ctx.hub;
  const form = formFields(ctx);
  const asJson = wantsJson(ctx) || (headerOf(ctx, "content-type") ?? "").startsWith("application/json");
  const fail = (message: string, field: string) =>
    asJson ? refuse("invalid_request", { details: [{ field, reason: "invalid", message }] }) : signInPage(ctx, form?.get("return_to") ?? "", "Sign in to Generation Hub", message, 400);
  if (!form) return fail("The body must be a form (application/x-www-form-urlencoded) or a JSON object.", "Content-Type");
  let accountId = form.get("account_id") ?? undefined;
  const apiKey = form.get("api_key");
  if (!accountId && apiKey) accountId = hub.state.keys.get(apiKey)?.account_id;
  if (!accountId) return fail(apiKey ? "No such API key." : "account_id (or api_key) is required.", apiKey ? "api_key" : "account_id");
  if (!hub.state.accounts.has(accountId)) return fail(`No account ${accountId}.`, "account_id");
  const session = hub.sessions.start(accountId);
  const cookie = { "set-cookie": hub.sessions.cookieHeader(session, `${ctx.basePath}/`) };
  if (asJson) return json(ctx, 200, hub.sessions.view(session), cookie);
  return seeOther(ctx, safeReturn(form.get("return_to"), ctx.baseUrl) ?? `${ctx.basePath}/site/`, cookie);
}

/**
 * A return address after sign-in, resolved against the simulator's own address as a
 * browser resolves it and kept only on that origin (no open redirect: `/\t/evil.example`
 * is `//evil.example` to a browser); a control character anywhere refuses it (a line
 * break would also break the answer's head). Answered as path (never starting `//`),
 * query and fragment.
 */
export function safeReturn(value: string | null | undefined, baseUrl: string): string | undefined {
  if (!value || /[\u0000-\u001f\u007f]/.test(value)) return undefined;
  let url: URL;
  let own: URL;
  try {
    own = new URL(baseUrl);
    url = new URL(value, own);
  } catch {
    return undefined;
  }
  if (url.origin !== own.origin) return undefined;
  // `/.//evil.example` resolves to the path `//evil.example`, which a Location would read as a host.
  return url.pathname.replace(/^\/+/, "/") + url.search + url.hash;
}
