// A credential with fewer scopes is refused on every route that needs a scope it lacks:
// 403 `insufficient_scope` (for an OAuth token, `WWW-Authenticate` naming the scope), never
// served ("ignored auth"). The credentials: the `read-only` role key, the keys given as
// `scopedKeys` (`--scoped-key`), and with OAuth auto-consent an access token of one scope.
// What a credential holds is read from `GET /v1/whoami`; the scope a route needs from the
// contract (routes whose scope the seed does not show are left out). Every request is
// one that changes nothing even if it were served: reads with this account's ids, writes
// with an empty body and ids nobody has.
import { operations, type Operation } from "../../contract/index.ts";
import { isUnrouted } from "../broken-rule.ts";
import { errorCodeOf, operationLabel } from "../describe.ts";
import { concrete } from "../checks/basics.ts";
import { fakeIds } from "../checks/generations.ts";
import { scopedToken } from "../checks/oauth.ts";
import { randomToken } from "../context.ts";
import type { Exchange, RequestSpec } from "../http.ts";
import { ASSETS, GENERATIONS } from "./routes.ts";
import { kindOf } from "./links.ts";
import type { Sequence } from "./sequence.ts";
import { replayOf, selected, sequence, type Walk } from "./walk.ts";

export const SCOPE_RULES = ["AUTH-6"];
/** The one scope of the access token the sweep asks for (a route of any other scope must refuse it). */
const TOKEN_SCOPE = "models:read";

interface Credential {
  label: string;
  secret: string;
  oauth: boolean;
}

/** A request of `op` that changes nothing even if it were served. */
function probe(w: Walk, op: Operation): RequestSpec {
  const method = op.method.toUpperCase();
  const read = method === "GET";
  const kind = kindOf(op);
  const id = read && kind === GENERATIONS ? w.c.shared.own[0]?.id : read && kind === ASSETS ? w.known.assetIds[0] : undefined;
  const slug = w.known.slugs[0];
  const path = op.path.replace(/\{([^}]+)\}/g, (m, name: string) => (name === "id" && typeof id === "string" ? encodeURIComponent(id) : name === "slug" && slug ? encodeURIComponent(slug) : name === "id" ? fakeIds(1)[0]! : concrete(m)));
  const headers: Record<string, string> = op.parameters.some((p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key") ? { "idempotency-key": `conformance-scope-${randomToken()}` } : {};
  return { method, path, headers, ...(op.op.requestBody ? { json: {} } : {}), rule: "AUTH-6" };
}

/** The credentials with fewer scopes this run has. */
async function credentials(w: Walk): Promise<{ list: Credential[]; token?: { revoke(): Promise<void> } }> {
  const { c } = w;
  const list: Credential[] = [];
  const readOnly = c.role("read-only");
  if (readOnly) list.push({ label: "read-only", secret: readOnly, oauth: false });
  (c.settings.options.scopedKeys ?? []).forEach((secret, i) => list.push({ label: `scoped-${i + 1}`, secret, oauth: false }));
  const token = await scopedToken(c, TOKEN_SCOPE);
  if (token) list.push({ label: token.label, secret: token.token, oauth: true });
  return { list, ...(token ? { token } : {}) };
}

export async function scopeSweep(w: Walk): Promise<void> {
  const { c } = w;
  const scoped = operations().filter((op) => op.scope && op.path.startsWith("/v1/") && selected(w, op.operationId));
  if (scoped.length === 0) return;
  const seq = sequence(w, "fewer scopes: every route that needs a scope the credential lacks", scoped[0]!.operationId);
  w.runs.push(seq.run);
  const { list, token } = await credentials(w);
  try {
    if (list.length === 0) seq.skip(SCOPE_RULES, "not walked: no credential with fewer scopes (--key read-only=..., --scoped-key, or --oauth-auto-consent with --allow-writes)");
    for (const cred of list) {
      const who = await c.get("/v1/whoami", "AUTH-6", { key: cred.secret, label: cred.label });
      const held: string[] = who.status === 200 && Array.isArray(who.json?.scopes) ? who.json.scopes.map(String) : [];
      if (who.status !== 200 || held.length === 0) {
        seq.skip(SCOPE_RULES, `${cred.label}: its scopes were not learnt (whoami ${who.status}${errorCodeOf(who.json) ? ` ${errorCodeOf(who.json)}` : ""})`);
        continue;
      }
      for (const op of scoped) {
        if (held.includes(op.scope!) || !op.schemes.includes(cred.oauth ? "oauth2" : "api_key")) continue;
        const route = seq.branch(replayOf(w, op.operationId));
        route.record(`readWhoami with ${cred.label} (it holds ${held.join(" ")})`, who);
        const ex = await send(route, op, cred, w);
        judgeScope(route, ex, op, cred, held);
      }
    }
  } finally {
    await token?.revoke();
    seq.done();
  }
}

async function send(route: Sequence, op: Operation, cred: Credential, w: Walk): Promise<Exchange> {
  const step = `${op.operationId} with ${cred.label}`;
  if (op.operationId === "streamGenerationEvents") {
    const opened = await w.c.target.openStream({ key: cred.secret, label: cred.label, rule: "AUTH-6" }, {});
    opened.stream?.close();
    route.record(step, opened.exchange);
    return opened.exchange;
  }
  return route.send(step, { ...probe(w, op), key: cred.secret, label: cred.label });
}

function judgeScope(route: Sequence, ex: Exchange, op: Operation, cred: Credential, held: string[]): void {
  const code = errorCodeOf(ex.json);
  const what = `${operationLabel(op)} needs ${op.scope}; ${cred.label} holds ${held.join(" ")}`;
  // A route the server lacks serves nothing to anyone: EP-4 reports it, not the scope.
  if (isUnrouted(op, ex.status)) return route.note("AUTH-6", `${what}: not routed (${ex.status}), see EP-4`);
  if (!route.expect(ex.status === 403 && code === "insufficient_scope", "AUTH-6", `${what}: answered ${ex.status}${code ? ` ${code}` : ""}${ex.status >= 200 && ex.status < 300 ? ", served without the scope" : ""}; expected 403 insufficient_scope`, ex)) return;
  if (!cred.oauth) return;
  const challenge = ex.headers.get("www-authenticate") ?? "";
  const named = /scope="?([^",]*)"?/.exec(challenge)?.[1]?.split(" ") ?? [];
  route.expect(named.includes(op.scope!), "AUTH-6", `${what}: WWW-Authenticate ${JSON.stringify(challenge)} does not name the missing scope ${op.scope}`, ex);
}
