// Accounts and API keys as the hub keeps them, made from the fixtures at each reset.
import { demoAccounts, demoKeys, type AccountSeed } from "./fixtures/accounts.ts";
import { subscriptionFrom, type Subscription } from "./subscriptions.ts";

/** An account as the hub keeps it: its seed, with the subscription made live. */
export interface Account extends Omit<AccountSeed, "subscription"> {
  /**
   * The live subscription or null (GET /v1/billing/subscription reads it; the session-only
   * subscription actions change it). See subscriptions.ts.
   */
  subscription: Subscription | null;
}

export interface ApiKey {
  secret: string;
  id: string;
  account_id: string;
  scopes: string[];
  /** Simulated time at which the key stops working; null: never. */
  expires_at: number | null;
  revoked: boolean;
  spend_limit_cc: number | null;
  spent_cc: number;
  purpose: string;
}

/** The form of an API key's secret (anything else answers 401 invalid_api_key). */
export const KEY_PATTERN = /^ghk_[A-Za-z0-9_]{4,120}$/;

export function demoAccountsAt(now: number): Map<string, Account> {
  const accounts = new Map<string, Account>();
  for (const seed of demoAccounts()) {
    accounts.set(seed.id, { ...structuredClone(seed), subscription: subscriptionFrom(seed.subscription, now) });
  }
  return accounts;
}

/** By secret. */
export function demoKeysAt(now: number): Map<string, ApiKey> {
  const keys = new Map<string, ApiKey>();
  for (const seed of demoKeys()) {
    keys.set(seed.secret, {
      secret: seed.secret,
      id: seed.id,
      account_id: seed.account_id,
      scopes: [...seed.scopes],
      expires_at: seed.expires_in_seconds === null ? null : now + seed.expires_in_seconds * 1000,
      revoked: seed.revoked,
      spend_limit_cc: seed.spend_limit_cc,
      spent_cc: seed.spent_cc,
      purpose: seed.purpose,
    });
  }
  return keys;
}
