// A scenario as the simulator reads it: the shape of scenarios/scenario.schema.json once
// its defaults are filled in (read.ts fills them). `ScenarioFile` is what a file may leave
// out. Times are relative to the moment the scenario is loaded: `*_seconds_ago` back,
// `*_in_seconds` / `*_in_days` forward (negative: already past).
import type { Fault } from "../faults.ts";
import type { SubscriptionSeed } from "../subscriptions.ts";

export const SCENARIO_VERSION = 1;

export interface ScenarioFreeQuota {
  type: string;
  remaining: number | null;
  mode: "standard" | "unlimited";
}

export interface ScenarioAccount {
  id: string;
  role: string;
  plan: { id: string; paid: boolean };
  balance_cc: number;
  free_quotas: ScenarioFreeQuota[];
  api_access: boolean;
  suspended: boolean;
  terms_accepted: boolean;
  early_access: boolean;
  subscription: SubscriptionSeed | null;
}

export interface ScenarioKey {
  secret: string;
  id: string;
  account_id: string;
  /** `all`: every scope of the contract; `read`: every `:read` scope. */
  scopes: string[] | "all" | "read";
  expires_in_seconds: number | null;
  revoked: boolean;
  spend_limit_cc: number | null;
  spent_cc: number;
  purpose: string;
}

export interface ScenarioStep {
  status: string;
  after_seconds: number;
  reason?: string;
  late?: boolean;
}

export interface ScenarioGeneration {
  id?: string;
  account_id: string;
  key_id: string;
  model: string;
  prompt: string;
  title?: string;
  status: string;
  error_reason?: string;
  created_seconds_ago: number;
  updated_seconds_ago?: number;
  charged_cc: number;
  refunded: boolean;
  free_quota_row: number | null;
  output_count: number;
  deleted: boolean;
  planned?: ScenarioStep[];
}

export interface ScenarioLedgerRow {
  id?: string;
  account_id: string;
  amount_cc: number;
  generation_id: string | null;
  reason: string | null;
  created_seconds_ago: number;
}

export interface ScenarioFolder {
  id?: string;
  account_id: string;
  name: string;
  created_seconds_ago: number;
}

export interface ScenarioAsset {
  id?: string;
  account_id: string;
  reference?: string;
  title: string;
  /** A folder's name; null: the root. */
  folder: string | null;
  content_type?: string;
  data_base64?: string;
  created_seconds_ago: number;
  expires_in_seconds?: number;
}

export interface ScenarioSupportMessage {
  id?: string;
  account_id: string;
  from: "user" | "support";
  text: string;
  images: string[];
  client_msg_id: string | null;
  created_seconds_ago: number;
  unread: boolean;
}

export interface ScenarioSpentWindow {
  window: "key" | "account" | "submit";
  key_id?: string;
  account_id?: string;
  used: number;
  started_seconds_ago: number;
}

export interface ScenarioRateLimits {
  window_seconds?: number;
  key_quota?: number;
  account_quota?: number;
  submit_quota?: number;
  concurrency?: number;
  spent: ScenarioSpentWindow[];
}

export interface Scenario {
  $schema?: string;
  scenario_version: typeof SCENARIO_VERSION;
  name: string;
  description: string;
  api_enabled: boolean;
  accounts: ScenarioAccount[];
  keys: ScenarioKey[];
  generations: ScenarioGeneration[];
  /** Left out: made from the balances and the charged generations. */
  ledger?: ScenarioLedgerRow[];
  library: { folders: ScenarioFolder[]; assets: ScenarioAsset[] };
  support_messages: ScenarioSupportMessage[];
  rate_limits: ScenarioRateLimits;
  /** Faults injected from the start (state/faults.ts). */
  faults: Fault[];
}

type Loose<T> = { [K in keyof T]?: T[K] extends (infer I)[] ? Loose<I>[] : T[K] extends object | null ? Loose<NonNullable<T[K]>> | Extract<T[K], null> : T[K] };

/** A scenario file as written: anything with a default may be left out. */
export type ScenarioFile = Loose<Scenario> & Pick<Scenario, "scenario_version" | "name" | "description">;
