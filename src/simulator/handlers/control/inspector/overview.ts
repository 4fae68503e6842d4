// The hub's state as the inspector shows it (`GET /_sim/overview`): accounts with their
// credits and rate windows (what is left of each), keys masked (`ghk_…`, by id and
// purpose), generations by status with each one's timeline (the moves it made, from the
// event log, and the moves planned), the faults in force, the clock. No secret: the
// control routes that hand out secrets (`GET /_sim/state`, `GET /_sim/keys`) stay where
// they are.
import { generationStatuses } from "../../../../contract/tables.ts";
import type { HubServices } from "../../../pipeline/services.ts";
import type { Generation } from "../../../state/generations.ts";
import type { SpentWindow } from "../../../state/options.ts";
import { isoTime } from "../../../state/util.ts";

/** Generations listed per status (the newest); the counts cover them all. */
export const GENERATIONS_SHOWN = 25;

interface WindowView {
  /** `default` (a key's), `account` (the account's, every key together) or `submit` (accepted submits). */
  policy: "default" | "account" | "submit";
  quota: number;
  used: number;
  remaining: number;
  /** Simulated seconds until it starts anew; null when no request has opened it. */
  resets_in_seconds: number | null;
}

function windowsOf(hub: HubServices) {
  const now = hub.clock.now();
  const byId = new Map<string, SpentWindow>();
  for (const w of hub.limiter.spent()) byId.set(`${w.window} ${w.id}`, w);
  const config = hub.limiter.config;
  return (kind: SpentWindow["window"], id: string, quota: number): WindowView => {
    const w = byId.get(`${kind} ${id}`);
    const used = w?.used ?? 0;
    return {
      policy: kind === "key" ? "default" : kind,
      quota,
      used,
      remaining: Math.max(0, quota - used),
      resets_in_seconds: w ? Math.max(0, Math.ceil((w.start + config.windowSeconds * 1000 - now) / 1000)) : null,
    };
  };
}

interface TimelineStep {
  status: string;
  time: string;
  deleted?: true;
  /** A planned move, not made yet. */
  planned?: true;
  reason?: string;
}

function generationView(g: Generation, past: TimelineStep[]) {
  const planned: TimelineStep[] = [];
  let at = g.next_at;
  for (let i = 0; at !== null && i < g.steps.length; i++) {
    const step = g.steps[i]!;
    if (i > 0) at += step.afterMs;
    planned.push({ status: step.status, time: isoTime(at), planned: true, ...(step.reason ? { reason: step.reason } : {}) });
  }
  return {
    id: g.id,
    account_id: g.account_id,
    key_id: g.key_id,
    type: g.type,
    model: g.model,
    title: g.title,
    status: g.status,
    deleted: g.deleted,
    error_reason: g.error_reason,
    refunded: g.refunded,
    charged_cc: g.charged_cc,
    created_at: isoTime(g.created_at),
    updated_at: isoTime(g.updated_at),
    timeline: [...past, ...planned],
  };
}

/** The generations shown, by status in the contract's order, the deleted ones last; with each one's timeline from the event log. */
function generationsOf(hub: HubServices) {
  const order = [...generationStatuses.map((s) => s.status), "deleted"];
  const groups = new Map(order.map((status) => [status, { status, count: 0, shown: [] as Generation[] }]));
  // One pass in the table's order (creation order), each group keeping its newest; no copy of the table.
  for (const g of hub.state.generations.values()) {
    const group = groups.get(g.deleted ? "deleted" : g.status) ?? groups.get("deleted")!;
    group.count++;
    group.shown.push(g);
    if (group.shown.length > GENERATIONS_SHOWN) group.shown.shift();
  }
  for (const group of groups.values()) group.shown.reverse();
  const shown = new Map<string, TimelineStep[]>();
  /** By account, the creation of its oldest generation shown: its log is read from there on, not whole. */
  const since = new Map<string, number>();
  for (const group of groups.values()) for (const g of group.shown) {
    shown.set(g.id, []);
    since.set(g.account_id, Math.min(since.get(g.account_id) ?? Infinity, g.created_at));
  }
  for (const [account, from] of since) {
    for (const event of hub.events.history(account, from)) {
      const data = event.data() as { id?: string; status?: string; deleted?: boolean; updated_at?: string };
      const steps = data.id === undefined ? undefined : shown.get(data.id);
      if (steps) steps.push({ status: String(data.status), time: String(data.updated_at), ...(data.deleted ? { deleted: true as const } : {}) });
    }
  }
  return [...groups.values()].map((group) => ({ status: group.status, count: group.count, data: group.shown.map((g) => generationView(g, shown.get(g.id)!)) }));
}

/** The simulator's sandboxes, for the inspector's picker: by id and scenario, never a key. */
function sandboxesOf(hub: HubServices) {
  return (hub.sandboxes?.list() ?? []).map((s) => ({ id: s.id, scenario: s.scenario, created_at: s.created_at, open_streams: s.open_streams }));
}

export function overviewOf(hub: HubServices) {
  const state = hub.state;
  const now = hub.clock.now();
  const windows = windowsOf(hub);
  const config = hub.limiter.config;
  return {
    scenario: hub.scenario.name,
    clock: { now: isoTime(now), now_ms: now, speed: hub.clock.speed },
    api_enabled: state.api_enabled,
    accounts: [...state.accounts.values()].map((a) => ({
      id: a.id,
      plan: a.plan,
      balance_cc: a.balance_cc,
      free_quotas: a.free_quotas,
      api_access: a.api_access,
      suspended: a.suspended,
      terms_accepted: a.terms_accepted,
      early_access: a.early_access,
      subscription: a.subscription ? { status: a.subscription.status } : null,
      windows: [windows("account", a.id, config.accountQuota), windows("submit", a.id, config.submitQuota)],
    })),
    keys: [...state.keys.values()].map((k) => ({
      id: k.id,
      /** Never the secret: its kind only. */
      secret: `${k.secret.slice(0, 4)}…`,
      account_id: k.account_id,
      purpose: k.purpose,
      scopes: k.scopes,
      status: k.revoked ? "revoked" : k.expires_at !== null && k.expires_at <= now ? "expired" : "active",
      expires_at: k.expires_at === null ? null : isoTime(k.expires_at),
      spend_limit_cc: k.spend_limit_cc,
      spent_cc: k.spent_cc,
      window: windows("key", k.id, config.keyQuota),
    })),
    generations: generationsOf(hub),
    open_streams: hub.events.openStreams.size,
    faults: hub.faults.list(),
    journal: { size: hub.journal.capacity, recorded: hub.journal.recorded },
    /** The sandbox this hub is, or null for the default hub. */
    sandbox: hub.sandbox ?? null,
    sandboxes: sandboxesOf(hub),
  };
}

export type Overview = ReturnType<typeof overviewOf>;
