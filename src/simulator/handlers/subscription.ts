// POST /v1/subscription/resume, /cancel, /card-change and /card-change/complete
// (session cookie only: the route's security lets nothing else through). The rules are
// domain/subscriptions.ts; these read the bodies and answer.
import { schemaValidator, toDetails } from "../../contract/validator.ts";
import { cancelSubscription, completeCardChange, resumeSubscription, startCardChange, type CancelReason } from "../domain/subscriptions.ts";
import { refuse } from "../domain/refusal.ts";
import { isRefusal, json, readJson, type Ctx, type Handler } from "../pipeline/context.ts";

/** The body validated against its schema, or the refusal naming its faults. */
function validBody<T>(ctx: Ctx, schemaName: string) {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const valid = schemaValidator(schemaName);
  if (!valid(parsed.value)) return refuse("invalid_request", { details: toDetails(valid.errors) });
  return parsed.value as T;
}

const answer = <T>(ctx: Ctx, result: T) => (isRefusal(result) ? result : json(ctx, 200, result));

export const subscriptionHandlers: Record<string, Handler> = {
  resumeSubscription: (ctx) => answer(ctx, resumeSubscription(ctx.hub, ctx.account!)),
  cancelSubscription: (ctx) => {
    // The body is optional: a reason and its text.
    const body = ctx.req.body && ctx.req.body.length > 0 ? validBody<CancelReason>(ctx, "SubscriptionCancelRequest") : {};
    if (isRefusal(body)) return body;
    return answer(ctx, cancelSubscription(ctx.hub, ctx.account!, body));
  },
  startCardChange: (ctx) => answer(ctx, startCardChange(ctx.hub, ctx.account!)),
  completeCardChange: (ctx) => {
    const body = validBody<{ payment_id: string; transaction_id?: string }>(ctx, "CardChangeCompleteRequest");
    if (isRefusal(body)) return body;
    return answer(ctx, completeCardChange(ctx.hub, ctx.account!, body.payment_id));
  },
};
