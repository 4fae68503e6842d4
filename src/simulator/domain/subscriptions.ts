// The four session-only subscription actions (POST /v1/subscription/resume, cancel,
// card-change, card-change/complete) on `account.subscription` (state/subscriptions.ts),
// the record GET /v1/billing/subscription reads; handlers/subscription.ts serves them. The
// seed lists the subscription error codes without tying each to an action; the contract
// assigns them by meaning (openapi/subscription/responses.yaml) and the checks below
// follow it. Every refusal is reachable: the provider-side facts (linked subscription,
// saved card, open checkout, a newer subscription, card changes allowed) are flags kept
// beside the record, and the provider failures are injected for one call, both through
// `/_sim/subscriptions/{account}`.
import type { Account } from "../state/accounts.ts";
import type { HubBase } from "../state/base.ts";
import { newProviderFacts, PERIOD_DAYS, type ProviderFacts, type Subscription } from "../state/subscriptions.ts";
import { entryOf, isoTime } from "../state/util.ts";
import { refuse, type Refusal } from "./refusal.ts";

/** Refusals the control interface can make the next call of an action answer (one use each). */
export const INJECTABLE: Readonly<Record<string, "resume" | "cancel" | "complete">> = {
  subscription_resume_failed: "resume",
  subscription_recancelled: "resume",
  subscription_cancel_failed: "cancel",
  subscription_cancel_unsaved: "cancel",
  card_check_not_authorized: "complete",
  card_change_in_progress: "complete",
  card_change_failed: "complete",
};

export const PERIOD_MS = PERIOD_DAYS * 86_400_000;

export function factsOf(base: HubBase, accountId: string): ProviderFacts {
  return entryOf(base.state.provider, accountId, newProviderFacts);
}

/** An active subscription renews as the clock passes its payment date. */
export function currentSubscription(hub: HubBase, account: Account): Subscription | null {
  const sub = account.subscription;
  if (sub && sub.status === "active") {
    // Renewed as many whole periods as have passed (computed, not stepped one by one).
    const now = hub.clock.now();
    if (sub.period_end <= now) sub.period_end += (Math.floor((now - sub.period_end) / PERIOD_MS) + 1) * PERIOD_MS;
  }
  return sub;
}

/**
 * A cancelled subscription ends with its paid period: the record becomes null, the
 * account has no paid plan any more, and resume answers `plan_expired`.
 */
export function scheduleEnd(hub: HubBase, account: Account): void {
  const facts = factsOf(hub, account.id);
  facts.ending?.cancel();
  facts.ending = null;
  const sub = account.subscription;
  if (!sub || sub.status !== "cancelled") return;
  const end = () => {
    facts.ending = null;
    if (account.subscription !== sub || sub.status !== "cancelled") return;
    account.subscription = null;
    account.plan = { id: "free", paid: false };
    facts.expired = true;
  };
  if (sub.period_end <= hub.clock.now()) end();
  else facts.ending = hub.clock.at(sub.period_end, end);
}

/** After a reset: the fixtures' cancelled subscriptions end on the clock too. */
export function scheduleFixtureEnds(hub: HubBase): void {
  for (const account of hub.state.accounts.values()) scheduleEnd(hub, account);
}

function injected(facts: ProviderFacts, action: "resume" | "cancel" | "complete"): Refusal | undefined {
  const i = facts.fail_next.findIndex((code) => INJECTABLE[code] === action);
  if (i < 0) return undefined;
  const [code] = facts.fail_next.splice(i, 1);
  return refuse(code!);
}

const dateOnly = (ms: number) => isoTime(ms).slice(0, 10);


/** What the provider's cancel keeps of the caller's reason (`SubscriptionCancelRequest`). */
export interface CancelReason {
  reason?: string;
  reason_text?: string;
}

export function resumeSubscription(hub: HubBase, account: Account): { next_pay_date: string } | Refusal {
  const facts = factsOf(hub, account.id);
  const sub = currentSubscription(hub, account);
  if (!sub) return facts.expired ? refuse("plan_expired") : refuse("no_active_plan");
  if (sub.status !== "cancelled") return refuse("renewal_already_on");
  if (facts.checkout_open) return refuse("checkout_in_progress");
  if (!facts.linked) return refuse("subscription_not_linked");
  if (facts.superseded) return refuse("subscription_superseded");
  if (!facts.card) return refuse("card_token_missing");
  const failed = injected(facts, "resume");
  if (failed) return failed;
  sub.status = "active";
  sub.cancelled_at = null;
  facts.cancel_reason = null;
  scheduleEnd(hub, account);
  return { next_pay_date: dateOnly(currentSubscription(hub, account)!.period_end) };
}

export function cancelSubscription(hub: HubBase, account: Account, reason: CancelReason): { plan_ends_at: string; superseded: boolean } | Refusal {
  const facts = factsOf(hub, account.id);
  const sub = currentSubscription(hub, account);
  if (!sub) return refuse("no_active_plan");
  if (facts.checkout_open) return refuse("checkout_in_progress");
  if (!facts.linked) return refuse("subscription_not_linked");
  // Cancelling a cancelled subscription changes nothing and answers the same.
  if (sub.status !== "cancelled") {
    const failed = injected(facts, "cancel");
    if (failed) return failed;
    sub.status = "cancelled";
    sub.cancelled_at = hub.clock.now();
    facts.cancel_reason = reason;
    scheduleEnd(hub, account);
  }
  return { plan_ends_at: isoTime(sub.period_end), superseded: facts.superseded };
}

export function startCardChange(hub: HubBase, account: Account): Record<string, unknown> | Refusal {
  const facts = factsOf(hub, account.id);
  const sub = currentSubscription(hub, account);
  if (!sub) return refuse("no_active_plan");
  if (facts.checkout_open) return refuse("checkout_in_progress");
  if (!facts.linked) return refuse("subscription_not_linked");
  if (!facts.card_change_available) return refuse("card_change_unavailable");
  const now = hub.clock.now();
  const paymentId = hub.ids.next("pay_", now);
  facts.card_changes.set(paymentId, { payment_id: paymentId, created_at: now, completed: null });
  // Parameters for the payment widget: a card check of one unit, no provider identifiers.
  return {
    payment_id: paymentId,
    widget: { kind: "card_check", amount: 1, currency: sub.currency, description: `Card check for the ${sub.plan_id} plan` },
  };
}

export function completeCardChange(hub: HubBase, account: Account, paymentId: string): Record<string, unknown> | Refusal {
  const facts = factsOf(hub, account.id);
  const change = facts.card_changes.get(paymentId);
  // A payment id that this account never started has no authorized card check.
  if (!change) return refuse("card_check_not_authorized", { message: "No card check with this payment_id was authorized for this account." });
  if (change.completed) return change.completed;
  const failed = injected(facts, "complete");
  if (failed) return failed;
  const sub = currentSubscription(hub, account);
  facts.card = { brand: "mastercard", last4: "5454" };
  let resumed = false;
  let charge: Record<string, unknown> | null = null;
  if (sub && sub.status === "past_due") {
    // The overdue period is paid with the new card and the plan runs on.
    charge = { status: "paid", amount: sub.recurrent_amount, currency: sub.currency };
    sub.status = "active";
    sub.period_end = hub.clock.now() + PERIOD_MS;
    resumed = true;
  } else if (sub && sub.status === "cancelled" && !facts.superseded) {
    // A new card turns renewal back on.
    sub.status = "active";
    sub.cancelled_at = null;
    scheduleEnd(hub, account);
    resumed = true;
  }
  const reply = {
    card: facts.card,
    next_pay_date: sub && sub.status !== "cancelled" ? dateOnly(currentSubscription(hub, account)!.period_end) : null,
    resumed,
    charge,
  };
  change.completed = reply;
  return reply;
}
