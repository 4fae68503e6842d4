// The four session-only subscription actions (POST /v1/subscription/resume, cancel,
// card-change, card-change/complete) on `account.subscription` (subscriptions.ts), the
// record GET /v1/billing/subscription reads. The seed lists the subscription error codes
// without tying each to an action; the contract assigns them by meaning
// (openapi/subscription/responses.yaml) and the checks below follow it. Every refusal is
// reachable: the provider-side facts (linked subscription, saved card, open checkout, a
// newer subscription, card changes allowed) are flags kept beside the record, and the
// provider failures are injected for one call, both through `/_sim/subscriptions/{account}`.
import { schemaValidator, toDetails } from "../../contract/index.ts";
import type { Scheduled } from "../state/clock.ts";
import { isRefusal, json, readJson, type Ctx, type Handler } from "../pipeline/context.ts";
import { refuse, type Refusal } from "./refusal.ts";
import type { SimResponse } from "../pipeline/exchange.ts";
import type { Hub } from "../hub.ts";
import type { Account } from "../state/hub-state.ts";
import { PERIOD_DAYS, type Subscription } from "../state/subscriptions.ts";
import { isoTime, LONGEST_SPAN_DAYS } from "../state/util.ts";

const PERIOD_MS = PERIOD_DAYS * 86_400_000;

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

export interface CardChange {
  payment_id: string;
  created_at: number;
  /** The completion's reply once done: a repeated completion answers it again. */
  completed: Record<string, unknown> | null;
}

/** What the provider knows about the account's subscription (simulated). */
export interface ProviderFacts {
  /** A provider subscription is linked (else 409 subscription_not_linked). */
  linked: boolean;
  /** The saved card: brand and last four digits only, never a number or a provider id. */
  card: { brand: string; last4: string } | null;
  /** A plan checkout is still open (409 checkout_in_progress). */
  checkout_open: boolean;
  /** A newer subscription already renews the plan (cancel answers `superseded: true`; resume 409). */
  superseded: boolean;
  /** The subscription can change its card (else 409 card_change_unavailable). */
  card_change_available: boolean;
  /** The paid period of a cancelled subscription ended (resume answers 400 plan_expired). */
  expired: boolean;
  /** Injected refusals, consumed by the next call of their action. */
  fail_next: string[];
  card_changes: Map<string, CardChange>;
  cancel_reason: { reason?: string; reason_text?: string } | null;
  /** The end of a cancelled period, scheduled on the clock. */
  ending: Scheduled | null;
}

const KEY = "subscription-actions";

export function factsOf(hub: Hub, accountId: string): ProviderFacts {
  let map = hub.state.extensions.get(KEY) as Map<string, ProviderFacts> | undefined;
  if (!map) {
    map = new Map();
    hub.state.extensions.set(KEY, map);
  }
  let facts = map.get(accountId);
  if (!facts) {
    facts = {
      linked: true,
      card: { brand: "visa", last4: "4242" },
      checkout_open: false,
      superseded: false,
      card_change_available: true,
      expired: false,
      fail_next: [],
      card_changes: new Map(),
      cancel_reason: null,
      ending: null,
    };
    map.set(accountId, facts);
  }
  return facts;
}

/** An active subscription renews as the clock passes its payment date. */
function current(hub: Hub, account: Account): Subscription | null {
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
export function scheduleEnd(hub: Hub, account: Account): void {
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
export function scheduleFixtureEnds(hub: Hub): void {
  for (const account of hub.state.accounts.values()) scheduleEnd(hub, account);
}

function injected(facts: ProviderFacts, action: "resume" | "cancel" | "complete"): Refusal | undefined {
  const i = facts.fail_next.findIndex((code) => INJECTABLE[code] === action);
  if (i < 0) return undefined;
  const [code] = facts.fail_next.splice(i, 1);
  return refuse(code!);
}

const dateOnly = (ms: number) => isoTime(ms).slice(0, 10);

const resumeSubscription: Handler = (ctx) => {
  const account = ctx.account!;
  const facts = factsOf(ctx.hub, account.id);
  const sub = current(ctx.hub, account);
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
  scheduleEnd(ctx.hub, account);
  return json(ctx, 200, { next_pay_date: dateOnly(current(ctx.hub, account)!.period_end) });
};

const cancelSubscription: Handler = (ctx) => {
  const account = ctx.account!;
  let reason: { reason?: string; reason_text?: string } = {};
  if (ctx.req.body && ctx.req.body.length > 0) {
    const parsed = readJson(ctx);
    if (isRefusal(parsed)) return parsed;
    const valid = schemaValidator("SubscriptionCancelRequest");
    if (!valid(parsed.value)) return refuse("invalid_request", { details: toDetails(valid.errors) });
    reason = parsed.value as typeof reason;
  }
  const facts = factsOf(ctx.hub, account.id);
  const sub = current(ctx.hub, account);
  if (!sub) return refuse("no_active_plan");
  if (facts.checkout_open) return refuse("checkout_in_progress");
  if (!facts.linked) return refuse("subscription_not_linked");
  // Cancelling a cancelled subscription changes nothing and answers the same.
  if (sub.status !== "cancelled") {
    const failed = injected(facts, "cancel");
    if (failed) return failed;
    sub.status = "cancelled";
    sub.cancelled_at = ctx.hub.clock.now();
    facts.cancel_reason = reason;
    scheduleEnd(ctx.hub, account);
  }
  return json(ctx, 200, { plan_ends_at: isoTime(sub.period_end), superseded: facts.superseded });
};

const startCardChange: Handler = (ctx) => {
  const account = ctx.account!;
  const hub = ctx.hub;
  const facts = factsOf(hub, account.id);
  const sub = current(hub, account);
  if (!sub) return refuse("no_active_plan");
  if (facts.checkout_open) return refuse("checkout_in_progress");
  if (!facts.linked) return refuse("subscription_not_linked");
  if (!facts.card_change_available) return refuse("card_change_unavailable");
  const now = hub.clock.now();
  const paymentId = hub.ids.next("pay_", now);
  facts.card_changes.set(paymentId, { payment_id: paymentId, created_at: now, completed: null });
  // Parameters for the payment widget: a card check of one unit, no provider identifiers.
  return json(ctx, 200, {
    payment_id: paymentId,
    widget: { kind: "card_check", amount: 1, currency: sub.currency, description: `Card check for the ${sub.plan_id} plan` },
  });
};

const completeCardChange: Handler = (ctx) => {
  const account = ctx.account!;
  const hub = ctx.hub;
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const valid = schemaValidator("CardChangeCompleteRequest");
  if (!valid(parsed.value)) return refuse("invalid_request", { details: toDetails(valid.errors) });
  const body = parsed.value as { payment_id: string; transaction_id?: string };
  const facts = factsOf(hub, account.id);
  const change = facts.card_changes.get(body.payment_id);
  // A payment id that this account never started has no authorized card check.
  if (!change) return refuse("card_check_not_authorized", { message: "No card check with this payment_id was authorized for this account." });
  if (change.completed) return json(ctx, 200, change.completed);
  const failed = injected(facts, "complete");
  if (failed) return failed;
  const sub = current(hub, account);
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
    next_pay_date: sub && sub.status !== "cancelled" ? dateOnly(current(hub, account)!.period_end) : null,
    resumed,
    charge,
  };
  change.completed = reply;
  return json(ctx, 200, reply);
};

export const subscriptionHandlers = { resumeSubscription, cancelSubscription, startCardChange, completeCardChange };

// ---------------------------------------------------------------------------
// Control: /_sim/subscriptions/{account_id}

type Body = Record<string, unknown>;

function invalid(field: string, message: string, reason = "invalid"): Refusal {
  return refuse("invalid_request", { details: [{ field, reason, message }] });
}

export function subscriptionView(hub: Hub, account: Account): Record<string, unknown> {
  const sub = current(hub, account);
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
function applyControl(hub: Hub, account: Account, body: Body): Refusal | undefined {
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
export function subscriptionControl(ctx: Ctx, parts: readonly string[], body: () => Body | Refusal): SimResponse | Refusal | undefined {
  if (parts[0] !== "subscriptions" || parts.length !== 2) return undefined;
  const hub = ctx.hub;
  const account = hub.state.accounts.get(parts[1]!);
  if (!account) return refuse("not_found", { message: "No such account." });
  if (ctx.req.method === "GET") return json(ctx, 200, subscriptionView(hub, account));
  if (ctx.req.method !== "PATCH") return undefined;
  const b = body();
  if (isRefusal(b)) return b;
  const refused = applyControl(hub, account, b);
  if (refused) return refused;
  return json(ctx, 200, subscriptionView(hub, account));
}
