// Puts a scenario's records into a fresh state (after createState made its accounts and
// keys): generations, the ledger, the library and the support threads, their times
// counted back from now. What moves on the clock afterwards (an in-progress generation's
// life, spent request windows) is the hub's to schedule: this answers the generations
// that have moves left.
import { inProgressStatuses } from "../../../contract/tables.ts";
import type { HubBase } from "../base.ts";
import { catalog } from "../fixtures/catalog.ts";
import type { Generation, Step } from "../generations.ts";
import { addGeneration } from "../hub-state.ts";
import type { LedgerEntry } from "../ledger.ts";
import { addAsset, REFERENCE_PREFIX, signatureMs, uploadLifetimeMs, sameName, type Asset, type Folder, type UploadTicket } from "../library.ts";
import { imageSize } from "../media.ts";
import { sentKey, type SupportMessage } from "../support.ts";
import { newTimeline } from "../timeline.ts";
import { entryOf, newList, randomToken } from "../util.ts";
import type { Scenario, ScenarioGeneration } from "./format.ts";
import { decodeBase64 } from "./read.ts";

/** The moves left for an in-progress generation the scenario plans nothing for. */
export type Planner = (status: string, prompt: string, type: string) => Step[];

/** How long before the start the opening rows of a made ledger are dated (at the latest). */
const OPENING_AGE_MS = 30 * 86_400_000;
/** A finished generation without `updated_seconds_ago` reached its status this long after its creation. */
const FINISH_AFTER_MS = 60_000;

const ms = (seconds: number) => Math.round(seconds * 1000);

/** Seeds `base.state` from the scenario; answers the generations with moves left, to be scheduled. */
export function seedScenario(base: HubBase, scenario: Scenario, plan: Planner): Generation[] {
  const generations = seedGenerations(base, scenario, plan);
  seedLedger(base, scenario, generations);
  seedLibrary(base, scenario);
  seedSupport(base, scenario);
  return generations.filter((g) => !g.deleted && g.steps.length > 0);
}

function seedGenerations(base: HubBase, scenario: Scenario, plan: Planner): Generation[] {
  const now = base.clock.now();
  const models = new Map(catalog().map((m) => [m.id, m]));
  // Ids are made in creation order, so "creation time, then id" is the order of the list.
  const order = scenario.generations.map((g, i) => ({ g, i, at: now - ms(g.created_seconds_ago) })).sort((a, b) => a.at - b.at || a.i - b.i);
  const made: Generation[] = new Array(scenario.generations.length);
  for (const { g, i, at } of order) made[i] = generationOf(base, g, at, models.get(g.model)!, plan);
  for (const gen of [...made].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) addGeneration(base.state, gen);
  return made;
}

function generationOf(base: HubBase, g: ScenarioGeneration, at: number, model: { type: string; output: Generation["output_kind"] }, plan: Planner): Generation {
  const now = base.clock.now();
  const steps: Step[] = g.planned
    ? g.planned.map((s) => ({ status: s.status, afterMs: ms(s.after_seconds), ...(s.reason ? { reason: s.reason } : {}), ...(s.late ? { late: true } : {}) }))
    : inProgressStatuses.has(g.status) ? plan(g.status, g.prompt, model.type) : [];
  return {
    id: g.id ?? base.ids.next("gen_", at),
    account_id: g.account_id,
    key_id: g.key_id,
    type: model.type,
    model: g.model,
    prompt: g.prompt,
    title: g.title ?? (g.prompt.trim().slice(0, 60) || `${model.type} ${g.model}`),
    status: g.status,
    created_at: at,
    updated_at: g.updated_seconds_ago === undefined ? Math.min(now, at + FINISH_AFTER_MS) : now - ms(g.updated_seconds_ago),
    error_reason: g.error_reason ?? null,
    refunded: g.refunded,
    charged_cc: g.charged_cc,
    free_quota: g.free_quota_row ?? -1,
    output_kind: model.output,
    output_count: g.output_count,
    deleted: g.deleted,
    steps,
    pending: null,
    next_at: null,
    cache: null,
    idempotency_key: null,
  };
}

/**
 * The scenario's ledger, or one made to add up: per account an opening row, then a debit
 * for each charged generation and a refund for each refunded one.
 */
function seedLedger(base: HubBase, scenario: Scenario, generations: readonly Generation[]): void {
  const now = base.clock.now();
  // Each account's rows in creation order (the hub folds what is beyond the retention).
  const row = (account_id: string, amount_cc: number, generation_id: string | null, reason: LedgerEntry["reason"], created_at: number, id?: string) => {
    const entry: LedgerEntry = { id: id ?? base.ids.next("txn_", created_at), account_id, amount_cc, generation_id, reason, created_at };
    entryOf(base.state.ledger, account_id, newTimeline<LedgerEntry>).add(entry);
  };
  if (scenario.ledger) {
    // In creation order (a file may list them in any): each then goes at the end of its account's list.
    for (const { r, at } of inTimeOrder(scenario.ledger, now)) row(r.account_id, r.amount_cc, r.generation_id, r.reason, at, r.id);
    return;
  }
  const charged = generations.filter((g) => g.charged_cc > 0);
  const oldest = Math.min(now, ...charged.map((g) => g.created_at));
  const openedAt = Math.min(now - OPENING_AGE_MS, oldest - FINISH_AFTER_MS);
  for (const a of scenario.accounts) {
    const own = charged.filter((g) => g.account_id === a.id);
    const opening = a.balance_cc + own.reduce((sum, g) => sum + (g.refunded ? 0 : g.charged_cc), 0);
    if (opening !== 0) row(a.id, opening, null, null, openedAt);
    for (const g of own) {
      row(a.id, -g.charged_cc, g.id, "generation", g.created_at);
      if (g.refunded) row(a.id, g.charged_cc, g.id, "refund", g.updated_at);
    }
  }
}

function seedLibrary(base: HubBase, scenario: Scenario): void {
  const now = base.clock.now();
  const store = base.state.library;
  for (const f of scenario.library.folders) {
    const at = now - ms(f.created_seconds_ago);
    const folder: Folder = { id: f.id ?? base.ids.next("fld_", at), account_id: f.account_id, name: f.name, created_at: at };
    entryOf(store.folders, f.account_id, newList<Folder>).push(folder);
  }
  for (const { r: a } of inTimeOrder(scenario.library.assets, now)) {
    // Without bytes of its own, an asset is the simulator's image (none without result files).
    const sample = a.data_base64 === undefined ? base.assets("image") : undefined;
    const bytes = sample ? sample.bytes : a.data_base64 !== undefined ? decodeBase64(a.data_base64) : undefined;
    const contentType = sample?.contentType ?? a.content_type;
    if (!bytes || !contentType) continue;
    const at = now - ms(a.created_seconds_ago);
    const ticket: UploadTicket = {
      reference: a.reference ?? base.ids.next(REFERENCE_PREFIX, at),
      account_id: a.account_id,
      kind: "image",
      content_type: contentType,
      content_length: bytes.length,
      signature: randomToken(24).toLowerCase(),
      created_at: at,
      expires_at: at + signatureMs(base.options),
      asset_id: null,
    };
    const size = imageSize(bytes, contentType);
    const folder = a.folder === null ? undefined : store.folders.get(a.account_id)?.find((f) => sameName(f.name, a.folder!));
    const asset: Asset = {
      id: a.id ?? base.ids.next("ast_", at),
      account_id: a.account_id,
      reference: ticket.reference,
      kind: "image",
      content_type: contentType,
      bytes,
      width: size?.width ?? null,
      height: size?.height ?? null,
      title: a.title,
      folder_id: folder?.id ?? null,
      created_at: at,
      expires_at: a.expires_in_seconds === undefined ? at + uploadLifetimeMs(base.options) : now + ms(a.expires_in_seconds),
    };
    ticket.asset_id = asset.id;
    store.tickets.set(ticket.reference, ticket);
    addAsset(store, asset);
  }
}

/** A scenario's records with their times, oldest first (the file's order among equals). */
function inTimeOrder<T extends { created_seconds_ago: number }>(records: readonly T[], now: number): { r: T; at: number }[] {
  return records.map((r, i) => ({ r, i, at: now - ms(r.created_seconds_ago) })).sort((a, b) => a.at - b.at || a.i - b.i);
}

function seedSupport(base: HubBase, scenario: Scenario): void {
  const now = base.clock.now();
  const support = base.state.support;
  const messages = scenario.support_messages.map((m) => ({ m, at: now - ms(m.created_seconds_ago) })).sort((a, b) => a.at - b.at);
  for (const { m, at } of messages) {
    const message: SupportMessage = {
      id: m.id ?? base.ids.next("msg_", at),
      account_id: m.account_id,
      from: m.from,
      text: m.text,
      images: [...m.images],
      client_msg_id: m.client_msg_id,
      created_at: at,
      read: m.from === "user" || !m.unread,
    };
    entryOf(support.threads, m.account_id, newList<SupportMessage>).push(message);
    if (m.from === "user" && m.client_msg_id !== null) support.sent.set(sentKey(m.account_id, m.client_msg_id), message);
  }
}
