// The refusal ladder of a request to an operation of the contract, in the seed's order,
// written once: each rung a named check that answers a refusal or nothing (and notes
// what it found on the request's context). The first refusal is the answer.
//
//   api switch           503 api_disabled on any /v1 path, before the key is read (seed,
//                        Errors), so an unknown /v1 path too; no RateLimit pair
//   endpoint             404 not_found: no operation of the contract has this method and path
//   credential           401 (no credential, malformed, unknown, expired, revoked key;
//                        unusable token) and 400 for Authorization given twice
//   origin               403 origin_mismatch: the session cookie's Origin allowlist, before the
//                        limiter so without a RateLimit pair (seed, Limits 2)
//   limiter              429 rate_limited: the request windows; from here on every answer
//                        carries the RateLimit pair
//   account              403 api_access_not_granted, account_suspended, legal_consent_required
//   scope                403 insufficient_scope (also a route its channel may not use)
//   repeated parameters  400 invalid_request: a query parameter the contract takes once, given twice
//
// Routes without a security scheme (OAuth, discovery) skip the credential rungs. Mounts
// outside the contract (/storage/, /site/, /_sim/) have guards of their own: the same
// shape, a list of rungs (pipeline/guard.ts).
import { matchOperation, singularQueryParameters, type Operation } from "../../contract/document.ts";
import { accountRefusal, authenticate, scopeRefusal } from "../domain/credentials.ts";
import { requestRateRefusal } from "../domain/ratelimit.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import { entryOf, newMap } from "../state/util.ts";
import { headerOf, isRefusal, type Ctx } from "./context.ts";

/** One check of a request: a refusal, or undefined to let it on to the next. */
export interface Rung {
  readonly name: string;
  readonly check: (ctx: Ctx) => Refusal | undefined;
}

/** The first refusal of `rungs`, asked in order (its rung's name noted on the context); undefined when every rung lets the request on. */
export function climb(rungs: readonly Rung[], ctx: Ctx): Refusal | undefined {
  for (const rung of rungs) {
    const refused = rung.check(ctx);
    if (refused) {
      ctx.refusedBy = rung.name;
      return refused;
    }
  }
  return undefined;
}

export function isV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}

/** The ladder of every request to the contract's operations, in the seed's order. */
export const LADDER: readonly Rung[] = [
  {
    name: "api switch",
    check: (ctx) => (isV1(ctx.path) && !ctx.hub.state.api_enabled ? refuse("api_disabled") : undefined),
  },
  {
    name: "endpoint",
    check: (ctx) => {
      const found = match(ctx.req.method, ctx.path);
      if (!found) return noEndpoint(ctx.req.method, ctx.path);
      ctx.operation = found.operation;
      ctx.params = found.params;
      return undefined;
    },
  },
  {
    name: "credential",
    check: (ctx) => {
      if (!secured(ctx)) return undefined;
      // Two credentials are ambiguous: neither is used (the adapter keeps every copy).
      if (Array.isArray(ctx.req.headers.authorization)) return repeated("Authorization", "header");
      const hub = ctx.hub;
      const credential = authenticate(hub.state, hub.resolvers, headerOf(ctx, "authorization"), headerOf(ctx, "cookie"), hub.clock.now(), ctx.baseUrl);
      if (isRefusal(credential)) return credential;
      ctx.credential = credential;
      return undefined;
    },
  },
  {
    name: "origin",
    check: (ctx) => {
      const origin = ctx.req.headers.origin;
      return ctx.credential?.admit?.(ctx.req.method, Array.isArray(origin) ? origin[0] : origin, ctx.baseUrl);
    },
  },
  {
    name: "limiter",
    check: (ctx) => {
      const credential = ctx.credential;
      if (!credential) return undefined;
      const limiter = ctx.hub.limiter;
      const w = credential.window;
      const limited = w ? limiter.takeSingle(w.counter, w.policy, w.quota) : limiter.take(credential.keyId, credential.accountId);
      ctx.rate = limited.binding;
      return limited.ok ? undefined : requestRateRefusal(limited.binding);
    },
  },
  {
    name: "account",
    check: (ctx) => {
      if (!ctx.credential) return undefined;
      const account = ctx.hub.state.accounts.get(ctx.credential.accountId);
      const refused = accountRefusal(account);
      if (!refused) ctx.account = account;
      return refused;
    },
  },
  {
    name: "scope",
    check: (ctx) => (ctx.credential ? scopeRefusal(ctx.credential, ctx.operation!, ctx.baseUrl) : undefined),
  },
  {
    name: "repeated parameters",
    check: (ctx) => {
      if (ctx.query.size === 0) return undefined;
      for (const name of singularQueryParameters(ctx.operation!)) {
        if (ctx.query.getAll(name).length > 1) return repeated(name, "query parameter");
      }
      return undefined;
    },
  },
];

function secured(ctx: Ctx): boolean {
  return ctx.operation!.schemes.length > 0;
}

// `matchOperation` is a pure function of method and path; a bounded memo keeps the
// per-request cost of the contract walk off the hot paths.
// By method, then path (no key string built per request).
type Found = { operation: Operation; params: Record<string, string> } | null;
const matches = new Map<string, Map<string, Found>>();
let remembered = 0;
function match(method: string, path: string): Found {
  const byPath = entryOf(matches, method, newMap<string, Found>);
  let found = byPath.get(path);
  if (found === undefined) {
    found = matchOperation(method, path) ?? null;
    if (remembered >= 10_000) {
      for (const m of matches.values()) m.clear();
      remembered = 0;
    }
    byPath.set(path, found);
    remembered++;
  }
  return found;
}

const CALLABLE = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** 404 `not_found`; for a path of the contract called with another method, which methods it takes (and `Allow`). */
function noEndpoint(method: string, path: string): Refusal {
  const allowed = CALLABLE.filter((m) => m !== method && matchOperation(m, path));
  if (allowed.length === 0) return refuse("not_found", { message: `No endpoint ${method} ${path}.` });
  return refuse("not_found", { message: `No endpoint ${method} ${path}: this path takes ${allowed.join(", ")}.`, headers: { allow: allowed.join(", ") } });
}

/** A value given twice where the contract takes one: which one was meant is not guessed. */
function repeated(field: string, what: string): Refusal {
  return refuse("invalid_request", { details: [{ field, reason: "duplicate", message: `the ${what} ${field} is given more than once` }] });
}
