// /_sim/subscriptions/{account_id}: reads and changes an account's subscription and what
// the payment provider knows about it (linked, saved card, open checkout, a newer
// subscription, card changes allowed, an expired period), and injects a provider failure
// for the next call of an action (`fail_next`).
import type { Account } from "../../state/accounts.ts";
import { PERIOD_MS, currentSubscription, factsOf, INJECTABLE, scheduleEnd } from "../../domain/subscriptions.ts";
import type { Subscription } from "../../state/subscriptions.ts";
import type { HubBase } from "../../state/base.ts";
import { isoTime, LONGEST_SPAN_DAYS } from "../../state/util.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json } from "../../pipeline/context.ts";
import { controlBody, invalid, type ControlBody as Body, type ControlRoutes } from "./body.ts";

export function subscriptionView(hub: HubBase, account: Account): Record<string, unknown> {
  const sub = currentSubscription(hub, account);
  const facts = factsOf(hub, account.id);
  return {
    account_id: account.id,
    subscription: sub && {
      plan_id: sub.plan_id,
      status: sub.status,
      amount: sub.amount,
      recurrent_amount: sub.recurrent_amount,
      currency: sub.currency,
      period_end: isoTime(sub.period_end),
      cancelled_at: sub.cancelled_at === null ? null : isoTime(sub.cancelled_at),
    },
    linked: facts.linked,
    card: facts.card,
    checkout_open: facts.checkout_open,
    superseded: facts.superseded,
    card_change_available: facts.card_change_available,
    expired: facts.expired,
    fail_next: facts.fail_next,
    cancel_reason: facts.cancel_reason,
    card_changes: [...facts.card_changes.values()].map((c) => ({ payment_id: c.payment_id, created_at: isoTime(c.created_at), completed: c.completed !== null })),
  };
}

const FLAGS = ["linked", "checkout_open", "superseded", "card_change_available", "expired"] as const;

/** Applies a control body; answers a refusal for a field it cannot take. */
function applyControl(hub: HubBase, account: Account, body: Body): Refusal | undefined {
  const facts = factsOf(hub, account.id);
  const now = hub.clock.now();
  if ("subscription" in body && body.subscription === null) {
    account.subscription = null;
  } else if ("status" in body) {
    const status = body.status;
    if (status !== "active" && status !== "cancelled" && status !== "past_due") return invalid("status", "status is active, cancelled, past_due (or subscription: null)", "not_allowed");
    const sub: Subscription = account.subscription ?? {
      plan_id: account.plan.paid ? account.plan.id : "pro",
      status: "active",
      amount: 20,
      recurrent_amount: 20,
      currency: "USD",
      period_end: now + PERIOD_MS,
      cancelled_at: null,
    };
    sub.status = status;
    if (status === "cancelled") sub.cancelled_at ??= now;
    else sub.cancelled_at = null;
    // An overdue payment is due now.
    if (status === "past_due") sub.period_end = now;
    else if (sub.period_end <= now) sub.period_end = now + PERIOD_MS;
    account.subscription = sub;
    if (!account.plan.paid) account.plan = { id: sub.plan_id, paid: true };
    facts.expired = false;
  }
  if ("period_end_in_days" in body) {
    const days = body.period_end_in_days;
    if (typeof days !== "number") return invalid("period_end_in_days", "period_end_in_days is a number", "wrong_type");
    if (!(Math.abs(days) <= LONGEST_SPAN_DAYS)) return invalid("period_end_in_days", `period_end_in_days is a number from -${LONGEST_SPAN_DAYS} to ${LONGEST_SPAN_DAYS}`, "out_of_range");
    if (!account.subscription) return invalid("period_end_in_days", "the account has no subscription", "not_available");
    account.subscription.period_end = now + days * 86_400_000;
  }
  for (const flag of FLAGS) {
    if (flag in body) {
      if (typeof body[flag] !== "boolean") return invalid(flag, `${flag} must be a boolean`, "wrong_type");
      facts[flag] = body[flag] as boolean;
    }
  }
  if ("card" in body) {
    if (body.card === null) facts.card = null;
    else if (body.card === true) facts.card = { brand: "visa", last4: "4242" };
    else return invalid("card", "card is null (no saved card) or true (a saved card)", "wrong_type");
  }
  if ("fail_next" in body) {
    const list = typeof body.fail_next === "string" ? [body.fail_next] : body.fail_next;
    if (!Array.isArray(list) || list.some((c) => typeof c !== "string" || !(c in INJECTABLE))) {
      return invalid("fail_next", `fail_next is one or more of ${Object.keys(INJECTABLE).join(", ")}`, "not_allowed");
    }
    facts.fail_next.push(...(list as string[]));
  }
  scheduleEnd(hub, account);
  return undefined;
}

/** GET and PATCH /_sim/subscriptions/{account_id}. */
export const subscriptionControl: ControlRoutes = {
  "GET subscriptions/{account}": (ctx, { account: id }) => {
    const account = ctx.hub.state.accounts.get(id!);
    return account ? json(ctx, 200, subscriptionView(ctx.hub, account)) : refuse("not_found", { message: "No such account." });
  },
  "PATCH subscriptions/{account}": (ctx, { account: id }) => {
    const account = ctx.hub.state.accounts.get(id!);
    if (!account) return refuse("not_found", { message: "No such account." });
    const b = controlBody(ctx);
    if (isRefusal(b)) return b;
    return applyControl(ctx.hub, account, b) ?? json(ctx, 200, subscriptionView(ctx.hub, account));
  },
};
