// The request pipeline. Route dispatch is driven by the contract: every request is
// matched with `matchOperation`; then the refusal ladder in the seed's order (API
// disabled, credential rungs, the rate limiter, account rungs, scope), then the
// operation's handler. Nothing a handler throws leaves as anything but an envelope.
import { matchOperation, singularQueryParameters, type Operation } from "../../contract/document.ts";
import { accountRefusal, authenticate, scopeRefusal } from "../domain/credentials.ts";
import { requestRateRefusal } from "../domain/ratelimit.ts";
import { withFaults } from "./faults.ts";
import { headerOf, isRefusal, refusalAnswer, type Ctx } from "./context.ts";
import { languageOf, refuse, type Refusal } from "../domain/refusal.ts";
import type { BodyAnswer, SimRequest, SimResponse } from "./exchange.ts";
import type { Handler } from "./context.ts";
import type { HubServices } from "./services.ts";
import { entryOf, newMap, newRequestId } from "../state/util.ts";

/** A part of the server outside the contract's operations, by path prefix (`/storage/`, `/site/`, `/_sim/`). */
export interface Mount {
  /** Path prefix; a prefix ending in `/` also takes the path without it. */
  prefix: string;
  handle: (ctx: Ctx) => SimResponse | Refusal;
  /** False: faults never act here (the control interface, so that faults can always be cleared). */
  faults?: false;
}

/** What the pipeline dispatches to: handlers by operationId, then mounts by prefix. */
export interface Routes {
  readonly handlers: ReadonlyMap<string, Handler>;
  readonly mounts: readonly Mount[];
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

// Handlers only read the query; one empty instance serves every request without one.
const NO_QUERY = new URLSearchParams();

const REQUEST_ID = /^[\x21-\x7e][\x20-\x7e]{0,1023}$/;

export function isV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}

function contextOf(hub: HubServices, req: SimRequest): Ctx {
  const q = req.url.indexOf("?");
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const given = req.headers["x-request-id"];
  return {
    hub,
    req,
    path,
    query: q < 0 ? NO_QUERY : new URLSearchParams(req.url.slice(q + 1)),
    requestId: typeof given === "string" && REQUEST_ID.test(given) ? given : newRequestId(),
    lang: languageOf(headerOf({ req } as Ctx, "accept-language")),
    baseUrl: hub.publicUrl ?? req.baseUrl,
    params: {},
  };
}

/** An envelope answer for a request the adapter refuses before the hub sees it (413, ...). */
export function refusalFor(hub: HubServices, req: SimRequest, refusal: Refusal): BodyAnswer {
  return refusalAnswer(contextOf(hub, req), refusal);
}

export function dispatch(hub: HubServices, routes: Routes, req: SimRequest): SimResponse {
  const ctx = contextOf(hub, req);
  const path = ctx.path;
  try {
    return route(hub, routes, ctx);
  } catch (error) {
    console.error(`simulator: ${req.method} ${path} failed (request ${ctx.requestId})`, error);
    ctx.rate = undefined;
    return refusalAnswer(ctx, refuse("internal_error"));
  }
}

function route(hub: HubServices, routes: Routes, ctx: Ctx): SimResponse {
  const { req, path } = ctx;
  for (const mount of routes.mounts) {
    if (!underMount(path, mount.prefix)) continue;
    if (mount.faults === false) return settle(ctx, mount.handle(ctx));
    return withFaults(ctx, () => settle(ctx, mount.handle(ctx)));
  }
  // The API switch acts on every /v1 path before the key is read (no RateLimit pair).
  if (isV1(path) && !hub.state.api_enabled) return refusalAnswer(ctx, refuse("api_disabled"));

  const found = match(req.method, path);
  if (!found) return refusalAnswer(ctx, noEndpoint(req.method, path));
  const operation = found.operation;
  ctx.operation = operation;
  ctx.params = found.params;
  const handler = routes.handlers.get(operation.operationId);

  if (operation.schemes.length > 0) {
    // Two credentials are ambiguous: neither is used (the adapter keeps every copy).
    if (Array.isArray(req.headers.authorization)) return refusalAnswer(ctx, repeated("Authorization", "header"));
    const now = hub.clock.now();
    const credential = authenticate(hub.state, hub.resolvers, headerOf(ctx, "authorization"), headerOf(ctx, "cookie"), now, ctx.baseUrl);
    if (isRefusal(credential)) return refusalAnswer(ctx, credential);
    ctx.credential = credential;
    // Before the limiter: such a refusal carries no RateLimit pair (origin_mismatch).
    const origin = req.headers.origin;
    const refusedEarly = credential.admit?.(req.method, Array.isArray(origin) ? origin[0] : origin, ctx.baseUrl);
    if (refusedEarly) return refusalAnswer(ctx, refusedEarly);

    const limited = credential.window
      ? hub.limiter.takeSingle(credential.window.counter, credential.window.policy, credential.window.quota)
      : hub.limiter.take(credential.keyId, credential.accountId);
    ctx.rate = limited.binding;
    if (!limited.ok) return refusalAnswer(ctx, requestRateRefusal(limited.binding));

    const account = hub.state.accounts.get(credential.accountId);
    const refusedAccount = accountRefusal(account);
    if (refusedAccount) return refusalAnswer(ctx, refusedAccount);
    ctx.account = account;

    const refusedScope = scopeRefusal(credential, operation, ctx.baseUrl);
    if (refusedScope) return refusalAnswer(ctx, refusedScope);
  }

  if (ctx.query !== NO_QUERY) {
    for (const name of singularQueryParameters(operation)) {
      if (ctx.query.getAll(name).length > 1) return refusalAnswer(ctx, repeated(name, "query parameter"));
    }
  }

  // An operation of the contract without a handler still answers in the envelope.
  if (!handler) return refusalAnswer(ctx, refuse("service_unavailable", { message: `${operation.operationId} is not available in this simulator yet.` }));
  return withFaults(ctx, () => settle(ctx, handler(ctx)));
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

/** The prefix itself (without its trailing slash) or anything under it. */
function underMount(path: string, prefix: string): boolean {
  if (path.startsWith(prefix)) return true;
  const n = prefix.length;
  return prefix.charCodeAt(n - 1) === 47 ? path.length === n - 1 && prefix.startsWith(path) : path === prefix;
}

function settle(ctx: Ctx, result: SimResponse | Refusal): SimResponse {
  return isRefusal(result) ? refusalAnswer(ctx, result) : result;
}
