// The live subscription of an account (`account.subscription`): what GET
// /v1/billing/subscription reads and the session-only subscription actions
// (domain/subscriptions.ts) change, and what the payment provider knows beside it. Amounts
// are whole units of `currency`, not centi-credits. The seed does not show the status
// values or the moves between them; the simulator's are `active` (renews), `cancelled`
// (renewal off, paid until the end of the period) and `past_due` (a renewal payment is
// overdue); an ended subscription is null. Only the fields below are kept here; no card
// data or provider id is ever published (seed rule 9).
import type { Scheduled } from "./clock.ts";
import { isoTime } from "./util.ts";

export type SubscriptionStatus = "active" | "cancelled" | "past_due";

/** A subscription in a scenario: times relative to the clock's start. */
export interface SubscriptionSeed {
  plan_id: string;
  status: SubscriptionStatus;
  amount: number;
  recurrent_amount: number;
  currency: string;
  /** Days from the clock's start to the next payment (or to the end of a cancelled period). */
  period_end_in_days: number;
  /** Days before the clock's start the subscription was cancelled; null: not cancelled. */
  cancelled_days_ago: number | null;
}

export interface Subscription {
  plan_id: string;
  status: SubscriptionStatus;
  amount: number;
  recurrent_amount: number;
  currency: string;
  /** Simulated ms: the next payment (active, past_due) or the end of the paid period (cancelled). */
  period_end: number;
  /** Simulated ms, or null when not cancelled. */
  cancelled_at: number | null;
}

export const DAY_MS = 86_400_000;
/** Length of one paid period (simulator convention). */
export const PERIOD_DAYS = 30;

export function subscriptionFrom(seed: SubscriptionSeed | null, now: number): Subscription | null {
  if (!seed) return null;
  return {
    plan_id: seed.plan_id,
    status: seed.status,
    amount: seed.amount,
    recurrent_amount: seed.recurrent_amount,
    currency: seed.currency,
    period_end: now + Math.round(seed.period_end_in_days * DAY_MS),
    cancelled_at: seed.cancelled_days_ago === null ? null : now - Math.round(seed.cancelled_days_ago * DAY_MS),
  };
}

/** The subscription as a scenario writes it, its times relative to `now` (subscriptionFrom's inverse). */
export function subscriptionSeed(s: Subscription, now: number): SubscriptionSeed {
  return {
    plan_id: s.plan_id,
    status: s.status,
    amount: s.amount,
    recurrent_amount: s.recurrent_amount,
    currency: s.currency,
    period_end_in_days: (s.period_end - now) / DAY_MS,
    cancelled_days_ago: s.cancelled_at === null ? null : (now - s.cancelled_at) / DAY_MS,
  };
}

/** The published record (BillingSubscription). */
export function subscriptionRecord(s: Subscription): Record<string, unknown> {
  return {
    status: s.status,
    plan_id: s.plan_id,
    amount: s.amount,
    recurrent_amount: s.recurrent_amount,
    currency: s.currency,
    next_payment_at: s.status === "cancelled" ? null : isoTime(s.period_end),
    cancelled_at: s.cancelled_at === null ? null : isoTime(s.cancelled_at),
    current_period_end: isoTime(s.period_end),
  };
}

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

export function newProviderFacts(): ProviderFacts {
  return {
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
}
