// A credential with fewer scopes is refused on every route that needs a scope it lacks:
// 403 `insufficient_scope` (for an OAuth token, `WWW-Authenticate` naming the scope), never
// served ("ignored auth"). The credentials: the `read-only` role key, the keys given as
// `scopedKeys` (`--scoped-key`), and with OAuth auto-consent an access token of one scope.
// What a credential holds is read from `GET /v1/whoami`; the scope a route needs from the
// contract (routes whose scope the seed does not show are left out). With writes, the
// session-only routes refuse each of them too (W-11: API keys and OAuth tokens get
// `insufficient_scope` there, whatever they hold). Every request is one that changes
// nothing even if it were served: reads with this account's ids, writes with an empty
// body and ids nobody has.
import { operations, type Operation } from "../../../contract/index.ts";
import { isUnrouted } from "../../judge/broken-rule.ts";
import { OAUTH_FACTS, scopedToken } from "../../kit/oauth.ts";
import { KNOWN_FACTS } from "../../kit/known.ts";
import { scopedKeys, whoHolds, type Scoped } from "../../kit/credentials.ts";
import { harmless, held, HELD_FACTS, sendTo, sessionOnlyOperations } from "../../kit/routes.ts";
import type { Sequence } from "../../kit/sequence.ts";
import { replayOf, selected, sequence, type Walk, propertyWalk } from "../../kit/walk.ts";
import { errorCodeOf, operationLabel, type Exchange } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const SCOPE_RULES = ["AUTH-6", "W-11"];
/** The one scope of the access token the sweep asks for (a route of any other scope must refuse it). */
const TOKEN_SCOPE = "models:read";

/** The credentials with fewer scopes this run has, with what each holds. */
async function credentials(w: Walk): Promise<{ list: Scoped[]; token?: { revoke(): Promise<void> } }> {
  const { c } = w;
  const list = [...(await scopedKeys(c))];
  const token = await scopedToken(c, TOKEN_SCOPE);
  if (token) list.push(await whoHolds(c, { label: token.label, secret: token.token, oauth: true }));
  return { list, ...(token ? { token } : {}) };
}

export async function scopeSweep(w: Walk): Promise<void> {
  const { c } = w;
  const scoped = operations().filter((op) => op.scope && op.path.startsWith("/v1/") && selected(w, op.operationId));
  const sessionOnly = sessionOnlyOperations().filter((op) => selected(w, op.operationId));
  if (scoped.length === 0 && sessionOnly.length === 0) return;
  const seq = sequence(w, "fewer scopes: every route that needs a scope the credential lacks", (scoped[0] ?? sessionOnly[0])!.operationId);
  w.runs.push(seq.run);
  const { list, token } = await credentials(w);
  try {
    if (list.length === 0) seq.skip(SCOPE_RULES, "not walked: no credential with fewer scopes (--key read-only=..., --scoped-key, or --oauth-auto-consent with --allow-writes)");
    if (!c.settings.writes) seq.skip(["W-11"], "the session-only routes not tried with these credentials (needs --allow-writes: served, they change the subscription)");
    for (const cred of list) {
      if (cred.unknown) {
        seq.skip(SCOPE_RULES, `${cred.label}: its scopes were not learnt (${cred.unknown})`);
        continue;
      }
      const lacking = scoped.filter((op) => !cred.scopes.includes(op.scope!) && op.schemes.includes(cred.oauth ? "oauth2" : "api_key"));
      for (const op of [...lacking, ...(c.settings.writes ? sessionOnly : [])]) {
        const route = seq.branch(replayOf(w, op.operationId));
        route.record(`readWhoami with ${cred.label} (it holds ${cred.scopes.join(" ")})`, cred.who);
        const ex = await send(route, op, cred, w);
        judgeScope(route, ex, op, cred);
      }
    }
  } finally {
    await token?.revoke();
    seq.done();
  }
}

async function send(route: Sequence, op: Operation, cred: Scoped, w: Walk): Promise<Exchange> {
  const step = `${op.operationId} with ${cred.label}`;
  const rule = op.scope ? "AUTH-6" : "W-11";
  const ex = await sendTo(w.c, op, { ...harmless(op, rule, held(w.c, { ...(w.known.assetIds[0] ? { asset: w.known.assetIds[0] } : {}), ...(w.known.slugs[0] ? { slug: w.known.slugs[0] } : {}) })), key: cred.secret, label: cred.label });
  w.c.target.deliberate(ex); // an empty body on purpose: only the scope may refuse it
  route.record(step, ex);
  return ex;
}

function judgeScope(route: Sequence, ex: Exchange, op: Operation, cred: Scoped): void {
  const code = errorCodeOf(ex.json);
  const rule = op.scope ? "AUTH-6" : "W-11";
  const what = op.scope ? `${operationLabel(op)} needs ${op.scope}; ${cred.label} holds ${cred.scopes.join(" ")}` : `${operationLabel(op)} is for the site session only; ${cred.label} is ${cred.oauth ? "an OAuth token" : "an API key"} holding ${cred.scopes.join(" ")}`;
  // A route the server lacks serves nothing to anyone: EP-4 reports it, not the scope.
  if (isUnrouted(op, ex.status)) return route.note(rule, `${what}: not routed (${ex.status}), see EP-4`);
  if (!route.expect(ex.status === 403 && code === "insufficient_scope", rule, `${what}: answered ${ex.status}${code ? ` ${code}` : ""}${ex.status >= 200 && ex.status < 300 ? ", served without the scope" : ""}; expected 403 insufficient_scope`, ex)) return;
  if (!cred.oauth || !op.scope) return;
  const challenge = ex.headers.get("www-authenticate") ?? "";
  const named = /scope="?([^",]*)"?/.exec(challenge)?.[1]?.split(" ") ?? [];
  route.expect(named.includes(op.scope), "AUTH-6", `${what}: WWW-Authenticate ${JSON.stringify(challenge)} does not name the missing scope ${op.scope}`, ex);
}

export const fewerScopesEveryRoute: Check = {
  name: "fewer scopes on every route that needs one",
  rules: SCOPE_RULES,
  needs: { uses: [...KNOWN_FACTS, ...HELD_FACTS, ...OAUTH_FACTS] },
  run: (c) => scopeSweep(propertyWalk(c, SCOPE_RULES)),
};
