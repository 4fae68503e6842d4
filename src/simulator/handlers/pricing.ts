// POST /v1/pricing/estimate: the submit's own checks, then the same price function
// the submit charges with. Creates and charges nothing.
import { isRefusal, json, readerOf, readJson, type Handler } from "../pipeline/context.ts";
import { refuse } from "../domain/refusal.ts";
import { priceOf } from "../domain/pricing.ts";
import { checkSubmit } from "../domain/submit.ts";
import { inputsOf } from "../domain/references.ts";

const estimatePrice: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const accepted = checkSubmit(parsed.value, ctx.hub.state.models, ctx.account!);
  if (isRefusal(accepted)) return accepted;
  // A price that depends on a file needs the file read and measured: unreadable is 400, not a number.
  const inputs = inputsOf(ctx.hub, readerOf(ctx), accepted.body);
  if (isRefusal(inputs)) return inputs;
  if (accepted.body.promo_mode !== undefined) return refuse("estimate_unavailable");
  const price = priceOf(accepted.model, accepted.body, inputs);
  return json(ctx, 200, { type: accepted.type, model_id: accepted.model.id, currency: price.currency, price_cc: price.price_cc, breakdown: price.breakdown });
};

export const pricingHandlers = { estimatePrice };
