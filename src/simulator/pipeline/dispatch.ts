// The request pipeline, one request in named stages (as Fastify's hooks name theirs):
//
//   context   the request's id, language and base address (contextOf)
//   route     a mount outside the contract (storage, the site, /_sim/) answers after its
//             guard; every other request climbs the refusal ladder in the seed's order
//             (pipeline/ladder.ts), then reaches the operation's handler; faults act at
//             the handler's door (pipeline/faults.ts). Nothing a handler throws leaves as
//             anything but an envelope.
//   journal   the exchange is recorded in the request journal, masked (pipeline/journal.ts)
//
// A request the adapter refuses before the hub sees it (a Host not allowed, a body too
// large) passes the context and journal stages only (refusalFor).
import { headerOf, isRefusal, refusalAnswer, type Ctx } from "./context.ts";
import { climb, LADDER, type Rung } from "./ladder.ts";
import { withFaults } from "./faults.ts";
import { journaled, type AdapterCheck } from "./journal.ts";
import { languageOf, refuse, type Refusal } from "../domain/refusal.ts";
import type { BodyAnswer, SimRequest, SimResponse } from "./exchange.ts";
import type { Handler } from "./context.ts";
import type { HubServices } from "./services.ts";
import { newRequestId } from "../state/util.ts";

/** A part of the server outside the contract's operations, by path prefix (`/storage/`, `/site/`, `/_sim/`). */
export interface Mount {
  /** Path prefix; a prefix ending in `/` also takes the path without it. */
  prefix: string;
  handle: (ctx: Ctx) => SimResponse | Refusal;
  /** Rungs every request under the prefix climbs before `handle` (pipeline/guard.ts). */
  guard?: readonly Rung[];
  /** False: faults never act here (the control interface, so that faults can always be cleared). */
  faults?: false;
}

/** What the pipeline dispatches to: handlers by operationId, then mounts by prefix. */
export interface Routes {
  readonly handlers: ReadonlyMap<string, Handler>;
  readonly mounts: readonly Mount[];
}

// Handlers only read the query; one empty instance serves every request without one.
const NO_QUERY = new URLSearchParams();

const REQUEST_ID = /^[\x21-\x7e][\x20-\x7e]{0,1023}$/;

function contextOf(hub: HubServices, req: SimRequest): Ctx {
  const q = req.url.indexOf("?");
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const given = req.headers["x-request-id"];
  // Every field a later stage may set is here from the start: one shape for every request.
  return {
    hub,
    req,
    path,
    query: q < 0 ? NO_QUERY : new URLSearchParams(req.url.slice(q + 1)),
    requestId: typeof given === "string" && REQUEST_ID.test(given) ? given : newRequestId(),
    lang: languageOf(headerOf({ req } as Ctx, "accept-language")),
    baseUrl: req.basePath === undefined ? (hub.publicUrl ?? req.baseUrl) : (hub.publicUrl ?? req.baseUrl) + req.basePath,
    basePath: req.basePath ?? "",
    params: {},
    operation: undefined,
    credential: undefined,
    account: undefined,
    rate: undefined,
    route: undefined,
    refusedBy: undefined,
    refusal: undefined,
    fault: undefined,
    journal: undefined,
  };
}

/**
 * An envelope answer for a request the adapter refuses before the hub sees it (413, ...);
 * `by` names the adapter's check, and the journal records the request under it.
 */
export function refusalFor(hub: HubServices, req: SimRequest, refusal: Refusal, by?: AdapterCheck): BodyAnswer {
  const ctx = contextOf(hub, req);
  const started = performance.now();
  const answer = refusalAnswer(ctx, refusal);
  if (by === undefined) return answer;
  ctx.refusedBy = by;
  journaled(ctx, answer, started);
  return answer;
}

export function dispatch(hub: HubServices, routes: Routes, req: SimRequest): SimResponse {
  const ctx = contextOf(hub, req);
  const started = hub.journal.on ? performance.now() : 0;
  return journaled(ctx, answerOf(routes, ctx), started);
}

/** The route stage: the answer of the mount or the operation, an envelope whatever happens. */
function answerOf(routes: Routes, ctx: Ctx): SimResponse {
  try {
    return route(routes, ctx);
  } catch (error) {
    console.error(`simulator: ${ctx.req.method} ${ctx.path} failed (request ${ctx.requestId})`, error);
    ctx.rate = undefined;
    return refusalAnswer(ctx, refuse("internal_error"));
  }
}

function route(routes: Routes, ctx: Ctx): SimResponse {
  for (const mount of routes.mounts) {
    if (!underMount(ctx.path, mount.prefix)) continue;
    ctx.route = mount.prefix;
    const refused = mount.guard && climb(mount.guard, ctx);
    if (refused) return refusalAnswer(ctx, refused);
    if (mount.faults === false) return settle(ctx, mount.handle(ctx));
    return withFaults(ctx, () => settle(ctx, mount.handle(ctx)));
  }
  const refused = climb(LADDER, ctx);
  if (refused) return refusalAnswer(ctx, refused);
  const operation = ctx.operation!;
  const handler = routes.handlers.get(operation.operationId);
  // An operation of the contract without a handler still answers in the envelope.
  if (!handler) return refusalAnswer(ctx, refuse("service_unavailable", { message: `${operation.operationId} is not available in this simulator yet.` }));
  return withFaults(ctx, () => settle(ctx, handler(ctx)));
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
