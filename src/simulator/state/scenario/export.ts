// The state as a scenario file (GET /_sim/scenario): what a team captures and commits.
// Every record keeps its id and its times relative to now, so the file loads back to the
// same state. Not in a scenario: sessions, OAuth records, idempotency keys, reports,
// upload tickets never written, registered remote files, the event history.
import { scopes as allScopes } from "../../../contract/tables.ts";
import { READ_SCOPES, type ApiKey } from "../accounts.ts";
import type { HubBase } from "../base.ts";
import type { Fault } from "../faults.ts";
import type { Generation } from "../generations.ts";
import { linkOf, type LedgerEntry } from "../ledger.ts";
import type { RateLimitConfig, SpentWindow } from "../options.ts";
import { subscriptionSeed } from "../subscriptions.ts";
import type { Scenario, ScenarioGeneration, ScenarioKey } from "./format.ts";
import { SCENARIO_VERSION } from "./format.ts";
import { encodeBase64 } from "./read.ts";

export interface ExportParts {
  name: string;
  description: string;
  rateLimits: RateLimitConfig;
  /** The request windows under way (RateLimiter.spent()). */
  windows: readonly SpentWindow[];
  /** The faults in force that a scenario carries (FaultPlan.exported()). */
  faults: readonly Fault[];
}

const byTimeThenId = (a: { created_at: number; id: string }, b: { created_at: number; id: string }) =>
  a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function scopesOf(k: ApiKey): ScenarioKey["scopes"] {
  return sameSet(k.scopes, allScopes) ? "all" : sameSet(k.scopes, READ_SCOPES) ? "read" : [...k.scopes];
}

export function exportScenario(base: HubBase, parts: ExportParts): Scenario {
  const now = base.clock.now();
  const ago = (t: number) => (now - t) / 1000;
  const ahead = (t: number) => (t - now) / 1000;
  const { state } = base;
  const keyIds = new Set([...state.keys.values()].map((k) => k.id));
  const sample = base.assets("image");
  const folderName = new Map([...state.library.folders.values()].flat().map((f) => [f.id, f.name]));

  const generation = (g: Generation): ScenarioGeneration => ({
    id: g.id,
    account_id: g.account_id,
    key_id: g.key_id,
    model: g.model,
    prompt: g.prompt,
    title: g.title,
    status: g.status,
    ...(g.status === "FAILED" ? { error_reason: g.error_reason ?? "unknown" } : {}),
    created_seconds_ago: ago(g.created_at),
    updated_seconds_ago: ago(g.updated_at),
    charged_cc: g.charged_cc,
    refunded: g.refunded,
    free_quota_row: g.free_quota >= 0 ? g.free_quota : null,
    output_count: g.output_count,
    deleted: g.deleted,
    ...(g.steps.length > 0
      ? {
          planned: g.steps.map((s, i) => ({
            status: s.status,
            after_seconds: i === 0 && g.next_at !== null ? ahead(g.next_at) : s.afterMs / 1000,
            ...(s.reason ? { reason: s.reason } : {}),
            ...(s.late ? { late: true } : {}),
          })),
        }
      : {}),
  });

  return {
    scenario_version: SCENARIO_VERSION,
    name: parts.name,
    description: parts.description,
    api_enabled: state.api_enabled,
    accounts: [...state.accounts.values()].map((a) => ({
      id: a.id,
      role: a.role,
      plan: { id: a.plan.id, paid: a.plan.paid },
      balance_cc: a.balance_cc,
      free_quotas: a.free_quotas.map((q) => ({ type: q.type, remaining: q.remaining, mode: q.mode })),
      api_access: a.api_access,
      suspended: a.suspended,
      terms_accepted: a.terms_accepted,
      early_access: a.early_access,
      subscription: a.subscription && subscriptionSeed(a.subscription, now),
    })),
    keys: [...state.keys.values()].map((k) => ({
      secret: k.secret,
      id: k.id,
      account_id: k.account_id,
      scopes: scopesOf(k),
      expires_in_seconds: k.expires_at === null ? null : ahead(k.expires_at),
      revoked: k.revoked,
      spend_limit_cc: k.spend_limit_cc,
      spent_cc: k.spent_cc,
      purpose: k.purpose,
    })),
    generations: [...state.generations.values()].sort(byTimeThenId).map(generation),
    ledger: ([] as LedgerEntry[]).concat(...[...state.ledger.values()].map((t) => t.toArray())).sort(byTimeThenId).map((r) => ({
      id: r.id,
      account_id: r.account_id,
      amount_cc: r.amount_cc,
      // A row whose generation is no longer kept is old history, without its link.
      generation_id: linkOf(r, state.generations),
      reason: r.reason,
      created_seconds_ago: ago(r.created_at),
    })),
    library: {
      folders: [...state.library.folders.values()].flat().map((f) => ({ id: f.id, account_id: f.account_id, name: f.name, created_seconds_ago: ago(f.created_at) })),
      assets: [...state.library.assets.values()].map((a) => {
        const isSample = sample !== undefined && a.content_type === sample.contentType && a.bytes.length === sample.bytes.length && a.bytes.every((b, i) => b === sample.bytes[i]);
        return {
          id: a.id,
          account_id: a.account_id,
          reference: a.reference,
          title: a.title,
          folder: a.folder_id === null ? null : (folderName.get(a.folder_id) ?? null),
          ...(isSample ? {} : { content_type: a.content_type, data_base64: encodeBase64(a.bytes) }),
          created_seconds_ago: ago(a.created_at),
          expires_in_seconds: ahead(a.expires_at),
        };
      }),
    },
    support_messages: [...state.support.threads.values()].flat().sort(byTimeThenId).map((m) => ({
      id: m.id,
      account_id: m.account_id,
      from: m.from,
      text: m.text,
      images: [...m.images],
      client_msg_id: m.client_msg_id,
      created_seconds_ago: ago(m.created_at),
      unread: m.from === "support" && !m.read,
    })),
    rate_limits: {
      window_seconds: parts.rateLimits.windowSeconds,
      key_quota: parts.rateLimits.keyQuota,
      account_quota: parts.rateLimits.accountQuota,
      submit_quota: parts.rateLimits.submitQuota,
      concurrency: parts.rateLimits.concurrency,
      // API keys' and accounts' windows (an OAuth grant's is not part of a scenario).
      spent: parts.windows
        .filter((w) => (w.window === "key" ? keyIds.has(w.id) : state.accounts.has(w.id)))
        .map((w) => ({ window: w.window, ...(w.window === "key" ? { key_id: w.id } : { account_id: w.id }), used: w.used, started_seconds_ago: ago(w.start) })),
    },
    faults: [...parts.faults],
  };
}
