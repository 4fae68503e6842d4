// Accounts and API keys as the hub keeps them, made from the scenario at each reset.
import { scopes as allScopes } from "../../contract/tables.ts";
import type { Scenario, ScenarioAccount, ScenarioKey } from "./scenario/format.ts";
import { subscriptionFrom, type Subscription } from "./subscriptions.ts";

/** An account as the hub keeps it: the scenario's, with the subscription made live. */
export interface Account extends Omit<ScenarioAccount, "subscription"> {
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

export const READ_SCOPES: readonly string[] = allScopes.filter((s) => s.endsWith(":read"));

/** A scenario key's scopes, its `all` and `read` spelled out. */
export function scopesOf(key: Pick<ScenarioKey, "scopes">): string[] {
  return key.scopes === "all" ? [...allScopes] : key.scopes === "read" ? [...READ_SCOPES] : [...key.scopes];
}

/** By id, in the scenario's order. */
export function accountsAt(scenario: Scenario, now: number): Map<string, Account> {
  const accounts = new Map<string, Account>();
  for (const a of scenario.accounts) {
    accounts.set(a.id, {
      id: a.id,
      role: a.role,
      plan: { ...a.plan },
      balance_cc: a.balance_cc,
      free_quotas: a.free_quotas.map((q) => ({ ...q })),
      api_access: a.api_access,
      suspended: a.suspended,
      terms_accepted: a.terms_accepted,
      early_access: a.early_access,
      subscription: subscriptionFrom(a.subscription, now),
    });
  }
  return accounts;
}

/** By secret, in the scenario's order. */
export function keysAt(scenario: Scenario, now: number): Map<string, ApiKey> {
  const keys = new Map<string, ApiKey>();
  for (const k of scenario.keys) {
    keys.set(k.secret, {
      secret: k.secret,
      id: k.id,
      account_id: k.account_id,
      scopes: scopesOf(k),
      expires_at: k.expires_in_seconds === null ? null : now + Math.round(k.expires_in_seconds * 1000),
      revoked: k.revoked,
      spend_limit_cc: k.spend_limit_cc,
      spent_cc: k.spent_cc,
      purpose: k.purpose,
    });
  }
  return keys;
}
