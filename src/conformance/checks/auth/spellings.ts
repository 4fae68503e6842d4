// The spellings of a path a router may take for the route itself (a trailing slash, a
// doubled slash, a dot segment, a percent-encoded letter, upper case) must not open a way
// around the credential checks: each on every route without a credential (the ladder's
// first rung, AUTH-7); the trailing slash also with a key that lacks the route's scope
// (AUTH-6), and on the session-only routes with an API key (W-11, with --allow-writes:
// served, they would change the subscription). Such a request is refused as the route refuses it, or is no route at all
// (404); never served. The requests change nothing even if served (see kit/routes.ts).
import type { Operation } from "../../../contract/index.ts";
import { scopedKeys } from "../../kit/credentials.ts";
import { harmless, held, HELD_FACTS, selects, sendTo, served, sessionOnlyOperations, v1Operations } from "../../kit/routes.ts";
import { operationLabel, type RequestSpec, said } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const TRAILING_SLASH = "a trailing slash";

export interface Spelling {
  /** What was changed: `a trailing slash`. */
  name: string;
  path: string;
  /** Sent byte for byte (a URL parser would resolve it). */
  verbatim?: boolean;
}

/**
 * Other spellings of `path` (a concrete path of the operation whose template is
 * `template`, segment for segment), each changing the last literal segment of the route
 * or what surrounds it.
 */
export function spellingsOf(template: string, path: string): Spelling[] {
  const q = path.indexOf("?");
  const bare = q < 0 ? path : path.slice(0, q);
  const query = q < 0 ? "" : path.slice(q);
  const t = template.split("/");
  const p = bare.split("/");
  let at = -1;
  for (let i = 2; i < t.length; i++) if (!t[i]!.startsWith("{")) at = i;
  if (at < 0 || p.length !== t.length) return [];
  const before = p.slice(0, at).join("/");
  const segment = p[at]!;
  const after = p.slice(at + 1).map((s) => `/${s}`).join("");
  const hex = segment.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0");
  return [
    { name: TRAILING_SLASH, path: `${bare}/${query}` },
    { name: "a doubled slash", path: `${before}//${segment}${after}${query}` },
    { name: "a dot segment", path: `${before}/conformance/../${segment}${after}${query}`, verbatim: true },
    { name: "a percent-encoded letter", path: `${before}/%${hex}${segment.slice(1)}${after}${query}` },
    { name: "upper case", path: `${before}/${segment.toUpperCase()}${after}${query}` },
  ];
}

/** Who asks, and what the route itself answers them. */
interface Asker {
  rule: string;
  what: string;
  refusal: string;
  spec: Partial<RequestSpec>;
}

async function tryEvery(c: CheckContext, op: Operation, asker: Asker, only?: string): Promise<void> {
  if (!selects(c, asker.rule)) return;
  const canonical = harmless(op, asker.rule, held(c));
  for (const s of spellingsOf(op.path, canonical.path).filter((x) => !only || x.name === only)) {
    // Never through `prism proxy`: it reads a spelling as the route (a percent-encoded letter decoded) and judges the 404 by the route's statuses.
    const spec: RequestSpec = { ...canonical, ...asker.spec, path: s.path, direct: true, ...(s.verbatim ? { verbatim: true } : {}), ...(canonical.method === "GET" ? { headersOnly: true } : {}) };
    const ex = await sendTo(c, op, spec);
    c.target.deliberate(ex);
    c.expect(
      !served(op, ex),
      asker.rule,
      `${operationLabel(op)} spelled with ${s.name} (${s.path.split("?")[0]}) ${asker.what} answered ${said(ex)}: served around the credential checks (the route refuses it with ${asker.refusal}; another spelling is no route)`,
      ex,
    );
  }
}

export const pathSpellings: Check = {
  name: "spellings of every route's path",
  rules: ["AUTH-7", "AUTH-6", "W-11"],
  needs: { uses: HELD_FACTS },
  async run(c) {
    for (const op of v1Operations()) await tryEvery(c, op, { rule: "AUTH-7", what: "without a credential", refusal: "401 unauthorized", spec: { key: null } });

    // With a credential the route refuses, the commonest of them (a router that ignores a
    // trailing slash), once per route: a key that lacks the route's scope (the first of
    // the run's), and an API key on the session-only routes.
    const keys = (await scopedKeys(c)).filter((k) => k.scopes.length > 0);
    if (keys.length === 0) c.skip(["AUTH-6"], "a trailing slash with a key that lacks the route's scope not tried (no --key read-only=... or --scoped-key)");
    for (const op of v1Operations("api_key")) {
      const key = op.scope ? keys.find((k) => !k.scopes.includes(op.scope!)) : undefined;
      if (key) await tryEvery(c, op, { rule: "AUTH-6", what: `with ${key.label} (it lacks ${op.scope})`, refusal: "403 insufficient_scope", spec: { key: key.secret, label: key.label } }, TRAILING_SLASH);
    }

    if (!c.settings.writes) c.skip(["W-11"], "a trailing slash on the session-only routes with an API key not tried (needs --allow-writes: served, they change the subscription)");
    else for (const op of sessionOnlyOperations()) await tryEvery(c, op, { rule: "W-11", what: "with an API key", refusal: "403 insufficient_scope", spec: {} }, TRAILING_SLASH);
  },
};
