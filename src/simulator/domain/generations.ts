// The generations engine: creates a generation, moves it through its planned states on
// the simulator's clock, emits an event for every change, refunds a failed attempt,
// and renders the record. Cancellation and deletion live here too (their public route
// is not shown in the seed; the control interface reaches them), and retention: beyond
// `retention.generations` per account the oldest generation is dropped with its
// `Idempotency-Key`, and answers 404 like any missing one.
import { inProgressStatuses } from "../../contract/tables.ts";
import type { Account } from "../state/accounts.ts";
import type { HubBase } from "../state/base.ts";
import type { Generation, Step } from "../state/generations.ts";
import { addGeneration } from "../state/hub-state.ts";
import { entryOf, isoTime, newSet } from "../state/util.ts";
import { LoggedEvent, type EventHub } from "./events.ts";
import { forgetKeyOf } from "./idempotency.ts";
import { recordLedger } from "./ledger.ts";
import { keepGrantSpend } from "./oauth/grants.ts";
import { stepsFrom, type Outcome } from "./outcomes.ts";
import { refuse, type Refusal } from "./refusal.ts";

export interface NewGeneration {
  account: Account;
  keyId: string;
  type: string;
  model: string;
  output: Generation["output_kind"];
  body: Record<string, unknown>;
  steps: Step[];
  charged_cc: number;
  free_quota: number;
  idempotencyKey: string;
}

export class GenerationEngine {
  /** In-progress generations per account, kept as they move (the concurrency check reads it). */
  #busy = new Map<string, Set<Generation>>();

  constructor(
    private readonly hub: HubBase,
    private readonly events: EventHub,
  ) {}

  /** Forgets the in-progress sets (state reset). */
  reset(): void {
    this.#busy.clear();
  }

  #track(gen: Generation): void {
    const set = entryOf(this.#busy, gen.account_id, newSet<Generation>);
    if (!gen.deleted && inProgressStatuses.has(gen.status)) set.add(gen);
    else set.delete(gen);
  }

  create(n: NewGeneration): Generation {
    const now = this.hub.clock.now();
    const prompt = typeof n.body.prompt === "string" ? n.body.prompt : "";
    const gen: Generation = {
      id: this.hub.ids.next("gen_", now),
      account_id: n.account.id,
      key_id: n.keyId,
      type: n.type,
      model: n.model,
      prompt,
      title: prompt.trim().slice(0, 60) || `${n.type} ${n.model}`,
      status: n.steps[0]?.status ?? "QUEUED",
      created_at: now,
      updated_at: now,
      error_reason: null,
      refunded: false,
      charged_cc: n.charged_cc,
      free_quota: n.free_quota,
      output_kind: n.output,
      output_count: n.type === "image" && typeof n.body.n_variants === "number" ? n.body.n_variants : 1,
      deleted: false,
      steps: n.steps.slice(1),
      pending: null,
      next_at: null,
      cache: null,
      idempotency_key: n.idempotencyKey,
    };
    addGeneration(this.hub.state, gen);
    this.#emit(gen);
    this.#scheduleNext(gen);
    this.keepNewest(gen.account_id);
    return gen;
  }

  /** Drops the account's oldest generations beyond the retention. */
  keepNewest(accountId: string): void {
    const kept = this.hub.state.by_account.get(accountId);
    const limit = this.hub.retention.generations;
    while (kept && kept.size > limit) this.#drop(kept.shift()!);
  }

  /**
   * Forgets a generation: its record, its key, its planned moves (one still in progress
   * stops where it is, its charge stays) and its busy slot. Its ledger rows stay, without
   * the link (state/ledger.ts); what it spent of an OAuth grant stays spent.
   */
  #drop(gen: Generation): void {
    this.#changing(gen);
    const state = this.hub.state;
    gen.pending?.cancel();
    gen.pending = null;
    this.#busy.get(gen.account_id)?.delete(gen);
    state.generations.delete(gen.id);
    forgetKeyOf(state, gen);
    keepGrantSpend(state, gen);
  }

  /** A generation is about to change: an export under way keeps it as it was. */
  #changing(gen: Generation): void {
    const captures = this.hub.state.captures;
    if (captures.size > 0) for (const c of captures) c.keep(gen);
  }

  /** A generation a scenario put in the state: counted while in progress, its planned moves scheduled from now. */
  restore(gen: Generation): void {
    this.#track(gen);
    this.#scheduleNext(gen);
  }

  /** The generation if it exists, belongs to the account and was not deleted. */
  visible(accountId: string, id: string): Generation | undefined {
    const gen = this.hub.state.generations.get(id);
    return gen && gen.account_id === accountId && !gen.deleted ? gen : undefined;
  }

  inProgress(accountId: string): ReadonlySet<Generation> {
    return this.#busy.get(accountId) ?? new Set();
  }

  /** Simulated seconds until the first of these generations reaches a final status. */
  secondsUntilOneEnds(gens: Iterable<Generation>): number {
    const now = this.hub.clock.now();
    let best = Infinity;
    for (const g of gens) {
      let at = g.next_at ?? now;
      for (let i = 0; i < g.steps.length; i++) {
        if (i > 0) at += g.steps[i]!.afterMs;
        if (!inProgressStatuses.has(g.steps[i]!.status)) break;
      }
      best = Math.min(best, at - now);
    }
    return Number.isFinite(best) ? Math.max(1, Math.ceil(best / 1000)) : 1;
  }

  // Callers that change a generation already told the captures (`#changing`).
  #scheduleNext(gen: Generation): void {
    gen.pending?.cancel();
    gen.pending = null;
    gen.next_at = null;
    const step = gen.steps[0];
    if (!step || gen.deleted) return;
    gen.next_at = this.hub.clock.now() + step.afterMs;
    gen.pending = this.hub.clock.at(gen.next_at, this.#move, gen);
  }

  // One function for every scheduled move (no closure per move). `steps` is only ever
  // replaced together with a reschedule, so its head is the move this task was made for.
  readonly #move = (gen: Generation): void => {
    this.#changing(gen);
    gen.pending = null;
    gen.next_at = null;
    const step = gen.steps.shift();
    if (step) this.#apply(gen, step);
    this.#scheduleNext(gen);
  };

  #apply(gen: Generation, step: Step): void {
    if (gen.deleted) return;
    gen.status = step.status;
    gen.updated_at = this.hub.clock.now();
    gen.cache = null;
    if (step.status === "FAILED") {
      gen.error_reason = step.reason ?? "unknown";
      this.#refund(gen);
    } else if (step.status === "DONE") {
      // A late result keeps the refund the failure gave: the result comes free.
      gen.error_reason = null;
    }
    this.#emit(gen);
  }

  #refund(gen: Generation): void {
    const account = this.hub.state.accounts.get(gen.account_id);
    if (!account) return;
    if (gen.charged_cc > 0 && !gen.refunded) {
      account.balance_cc += gen.charged_cc;
      const key = [...this.hub.state.keys.values()].find((k) => k.id === gen.key_id);
      if (key) key.spent_cc = Math.max(0, key.spent_cc - gen.charged_cc);
      recordLedger(this.hub, account.id, gen.charged_cc, gen.id, "refund");
      gen.refunded = true;
    }
    // A free-quota use given back is a refund too (the record says `refunded`).
    const quota = gen.free_quota >= 0 ? account.free_quotas[gen.free_quota] : undefined;
    if (quota) {
      if (quota.remaining !== null) quota.remaining++;
      gen.refunded = true;
    }
    gen.free_quota = -1;
  }

  #emit(gen: Generation): void {
    this.#track(gen);
    this.events.emit(gen.account_id, new StatusChange(gen.type, gen.updated_at, gen.id, gen.status, gen.deleted));
  }

  /** Replaces what is left of a generation's life with `outcome`; false when nothing can change. */
  force(gen: Generation, outcome: Outcome): boolean {
    if (gen.deleted) return false;
    const steps = stepsFrom(gen.status, outcome, gen.type, this.hub.timing);
    if (!steps || steps.length === 0) return false;
    this.#changing(gen);
    gen.steps = steps;
    this.#scheduleNext(gen);
    return true;
  }

  /**
   * Cancellation: only before work starts and when not held for review. The record
   * becomes FAILED with `deleted: true` (one event), is refunded, and answers 404 after.
   */
  cancel(gen: Generation): Refusal | undefined {
    if (gen.status === "MODERATION_PENDING") return refuse("generation_frozen");
    if (gen.status !== "QUEUED" && gen.status !== "PENDING") {
      return refuse(gen.status === "RUNNING" ? "generation_in_flight" : "resource_conflict", {
        message: gen.status === "RUNNING" ? undefined : `A ${gen.status} generation cannot be cancelled; delete it instead.`,
      });
    }
    this.#changing(gen);
    gen.pending?.cancel();
    gen.pending = null;
    gen.steps = [];
    gen.status = "FAILED";
    gen.error_reason = "unknown";
    gen.deleted = true;
    gen.updated_at = this.hub.clock.now();
    gen.cache = null;
    this.#refund(gen);
    this.#emit(gen);
    return undefined;
  }

  /** Deletion of a finished generation: its status stays, `deleted: true`, one event. */
  remove(gen: Generation): Refusal | undefined {
    if (gen.status === "MODERATION_PENDING") return refuse("generation_frozen");
    if (gen.status === "QUEUED" || gen.status === "PENDING") return this.cancel(gen);
    if (gen.status === "RUNNING") return refuse("generation_in_flight");
    this.revoke(gen);
    return undefined;
  }

  /** Revocation after a `moderation` report: like a deletion, whatever the status. */
  revoke(gen: Generation): void {
    this.#changing(gen);
    gen.pending?.cancel();
    gen.pending = null;
    gen.steps = [];
    gen.deleted = true;
    gen.updated_at = this.hub.clock.now();
    gen.cache = null;
    this.#emit(gen);
  }

  setTitle(gen: Generation, title: string): void {
    this.#changing(gen);
    gen.title = title;
    gen.cache = null;
  }

  /** The generation record (the same shape everywhere: list, read, batch, submit). */
  record(gen: Generation, base: string): Record<string, unknown> {
    const r: Record<string, unknown> = {
      id: gen.id,
      type: gen.type,
      status: gen.status,
      model: gen.model,
      title: gen.title,
      prompt: gen.prompt,
      created_at: isoTime(gen.created_at),
      updated_at: isoTime(gen.updated_at),
      output_urls: gen.status === "DONE" ? outputUrls(gen, base) : [],
      cost_cc: gen.refunded ? 0 : gen.charged_cc,
    };
    if (gen.status === "FAILED") r.error = { reason: gen.error_reason ?? "unknown" };
    if (gen.refunded) r.refunded = true;
    return r;
  }

  /** The record as JSON, cached for reads that repeat (lists, polling). */
  recordText(gen: Generation, base: string): string {
    if (gen.cache && gen.cache.base === base) return gen.cache.text;
    const text = JSON.stringify(this.record(gen, base));
    gen.cache = { base, text };
    return text;
  }
}

/**
 * A `generation.status_changed` event in the log: the record's id, status and deletion at
 * that moment. Its time (`updated_at`) is the event's time, and stays a number until the
 * frame is rendered (most logged events never are).
 */
class StatusChange extends LoggedEvent {
  constructor(
    type: string,
    at: number,
    readonly id: string,
    readonly status: string,
    readonly deleted: boolean,
  ) {
    super(type, at);
  }

  get event(): string {
    return "generation.status_changed";
  }

  data(): { id: string; type: string; status: string; deleted: boolean; updated_at: string } {
    return { id: this.id, type: this.type, status: this.status, deleted: this.deleted, updated_at: isoTime(this.at) };
  }
}

export function outputUrls(gen: Generation, base: string): string[] {
  const urls: string[] = [];
  for (let i = 0; i < gen.output_count; i++) urls.push(`${base}/v1/generations/${gen.id}/outputs/${gen.output_kind}/${i}`);
  return urls;
}
