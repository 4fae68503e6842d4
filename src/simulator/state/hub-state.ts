// The hub's state: accounts, keys, generations, the idempotency store, the ledger and
// reports. Everything here is plain data, rebuilt from the fixtures on reset.
import type { Scheduled } from "./clock.ts";
import { demoAccounts, demoKeys, type AccountSeed } from "./fixtures/accounts.ts";
import { articles, type Article } from "./fixtures/knowledge.ts";
import { catalog, type ModelDef } from "./fixtures/catalog.ts";
import { openingLedger } from "./ledger.ts";
import { subscriptionFrom, type Subscription } from "./subscriptions.ts";
import { randomToken } from "./util.ts";

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

/** One scheduled move of a generation (the simulator's plan for its life). */
export interface Step {
  afterMs: number;
  status: string;
  reason?: string;
  /** A late provider result: FAILED turns into DONE. */
  late?: boolean;
}

export interface Generation {
  id: string;
  account_id: string;
  key_id: string;
  type: string;
  model: string;
  prompt: string;
  title: string;
  status: string;
  created_at: number;
  updated_at: number;
  error_reason: string | null;
  refunded: boolean;
  charged_cc: number;
  /** Index of the free-quota row this generation used, or -1. */
  free_quota: number;
  output_kind: "image" | "video" | "model";
  output_count: number;
  deleted: boolean;
  steps: Step[];
  pending: Scheduled | null;
  /** Simulated time of the next planned move, or null. */
  next_at: number | null;
  /** The record as JSON for one base address; dropped on every change. */
  cache: { base: string; text: string } | null;
}

export interface LedgerEntry {
  id: string;
  account_id: string;
  amount_cc: number;
  generation_id: string | null;
  reason: string | null;
  created_at: number;
}

export interface ReportRecord {
  account_id: string;
  generation_id: string;
  client_msg_id: string | null;
  text: string;
  reason: string;
  support_request_id: string;
  message_id: string;
  created_at: number;
}

export interface IdempotencyEntry {
  /** The accepted body as received (JSON text). */
  body: string;
  generation_id: string;
}

export interface HubState {
  /** Changes on every reset, so event ids and cursors of the old state are unknown. */
  epoch: string;
  api_enabled: boolean;
  accounts: Map<string, Account>;
  /** By secret. */
  keys: Map<string, ApiKey>;
  generations: Map<string, Generation>;
  /** Per account, in creation order (oldest first). */
  by_account: Map<string, Generation[]>;
  /** By account, then by `Idempotency-Key`. */
  idempotency: Map<string, Map<string, IdempotencyEntry>>;
  ledger: LedgerEntry[];
  /** By `<account>\n<client_msg_id>` and by support request id. */
  reports: Map<string, ReportRecord>;
  models: ModelDef[];
  articles: Article[];
  /** Part 2 keeps its own records here (library, uploads, support, billing, OAuth). */
  extensions: Map<string, unknown>;
}

export function createState(now: number): HubState {
  const accounts = new Map<string, Account>();
  for (const seed of demoAccounts()) {
    accounts.set(seed.id, { ...structuredClone(seed), subscription: subscriptionFrom(seed.subscription, now) });
  }
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
  return {
    epoch: randomToken(6),
    api_enabled: true,
    accounts,
    keys,
    generations: new Map(),
    by_account: new Map(),
    idempotency: new Map(),
    ledger: openingLedger(accounts.values(), now),
    reports: new Map(),
    models: catalog(),
    articles: articles(),
    extensions: new Map(),
  };
}
