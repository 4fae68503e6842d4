// What every control route under /_sim/ shares: its shape (JSON in and out, refusals in
// the envelope) and reading its body.
import { isRefusal, readJson, type Ctx } from "../../pipeline/context.ts";
import type { SimResponse } from "../../pipeline/exchange.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { MAX_JSON_DEPTH, nestsTooDeep } from "../../state/util.ts";

export type ControlBody = Record<string, unknown>;

/** A control route's handler: `params` holds the decoded `{name}` segments of its path. */
export type ControlHandler = (ctx: Ctx, params: Readonly<Record<string, string>>) => SimResponse | Refusal;

/**
 * Control routes by `METHOD path`: the path after /_sim/, `{name}` standing for one
 * segment (`"POST keys/{key}/revoke"`), as `/v1`'s handlers are by operationId.
 */
export type ControlRoutes = Readonly<Record<string, ControlHandler>>;

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

/** 400 invalid_request naming one field of a control body. */
export function invalid(field: string, message: string, reason = "invalid"): Refusal {
  return refuse("invalid_request", { details: [{ field, reason, message }] });
}
