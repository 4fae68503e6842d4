// Control routes of the site side (sessions, subscriptions, OAuth) under /_sim/: they plug
// into the core's control handler (`hub.controlRoutes`), JSON in and out, refusals in
// the envelope.
import { isRefusal, readJson, type Ctx } from "../../pipeline/context.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import type { ControlRoute } from "../../hub.ts";
import { MAX_JSON_DEPTH, nestsTooDeep } from "../../state/util.ts";

export type ControlBody = Record<string, unknown>;
/** A control route that reads its JSON body only when it needs one. */
export type BodyControlRoute = (ctx: Ctx, parts: readonly string[], body: () => ControlBody | Refusal) => SimResponse | Refusal | undefined;

/** The request's JSON object body ({} when there is none). */
export function controlBody(ctx: Ctx): ControlBody | Refusal {
  if (!ctx.req.body || ctx.req.body.length === 0) return {};
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const v = parsed.value;
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return refuse("invalid_request", { details: [{ reason: "wrong_type", message: "the body must be a JSON object" }] });
  }
  // Control bodies are copied and serialised whole (a published document, say): a value
  // nested deeper than any real one would overflow the stack there.
  if (nestsTooDeep(v)) {
    return refuse("invalid_request", { details: [{ reason: "invalid", message: `the body nests deeper than ${MAX_JSON_DEPTH} levels` }] });
  }
  return v as ControlBody;
}

export function controlRoute(route: BodyControlRoute): ControlRoute {
  return (ctx, parts) => route(ctx, parts, () => controlBody(ctx));
}
