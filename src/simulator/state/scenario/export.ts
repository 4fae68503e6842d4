// The state as a scenario file (GET /_sim/scenario): what a team captures and commits.
// Every record keeps its id and its times relative to now, so the file loads back to the
// same state. Not in a scenario: sessions, OAuth records, idempotency keys, reports,
// upload tickets never written, registered remote files, the event history.
//
// A capture is the state at one moment, written out later, a slice at a time (the route
// lets other requests run between slices). What is small is copied at once; generations
// are held by reference and the engine tells the capture before one changes or is
// dropped (`keep`), so it writes that one as it was; ledger rows never change (a fold
// makes a new row) and uploaded bytes neither.
import { scopes as allScopes } from "../../../contract/tables.ts";
import { READ_SCOPES, type ApiKey } from "../accounts.ts";
import type { HubBase } from "../base.ts";
import type { Fault } from "../faults.ts";
import type { Generation, GenerationCapture } from "../generations.ts";
import type { HubState } from "../hub-state.ts";
import { jsonSlices, LazyList, whole } from "../json-slices.ts";
import { linkOf } from "../ledger.ts";
import { merged } from "../timeline.ts";
import { SANDBOX_KEY_PREFIX } from "../sandbox-keys.ts";
import type { RateLimitConfig, SpentWindow } from "../options.ts";
import { subscriptionSeed } from "../subscriptions.ts";
import type { Scenario, ScenarioAsset, ScenarioGeneration, ScenarioKey, ScenarioLedgerRow } from "./format.ts";
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

/** Characters per slice of the text (about 250 generations): a millisecond or two of work each. */
const SLICE_CHARS = 128 * 1024;

export class ScenarioCapture implements GenerationCapture {
  readonly #state: HubState;
  readonly #now: number;
  /** Generations as they were when they changed after the capture, by record. */
  readonly #before = new Map<Generation, ScenarioGeneration>();
  readonly #beforeIds = new Set<string>();
  /** The file with its long lists still to be written. */
  readonly #shape: Omit<Scenario, "generations" | "ledger" | "library"> & {
    generations: LazyList<ScenarioGeneration>;
    ledger: LazyList<ScenarioLedgerRow>;
    library: { folders: Scenario["library"]["folders"]; assets: LazyList<ScenarioAsset> };
  };

  constructor(base: HubBase, parts: ExportParts) {
    const now = base.clock.now();
    const state = base.state;
    this.#state = state;
    this.#now = now;
    const ago = (t: number) => (now - t) / 1000;
    const ahead = (t: number) => (t - now) / 1000;
    // A sandbox's own keys route to it alone: the file leaves them out, and a sandbox that loads it adds its own.
    const keys = [...state.keys.values()].filter((k) => !k.secret.startsWith(SANDBOX_KEY_PREFIX));
    const keyIds = new Set(keys.map((k) => k.id));
    const sample = base.assets("image");
    const folderName = new Map([...state.library.folders.values()].flat().map((f) => [f.id, f.name]));

    // Held by reference (copies of the lists, not of the records): written later, as they
    // are then unless `keep` saw them change, every account's in one creation order.
    const generations = [...state.by_account.values()].map((t) => t.toArray());
    const rows = [...state.ledger.values()].map((t) => t.toArray());
    // What can change is copied now; the bytes are encoded when written.
    const assets = [...state.library.assets.values()].map((a) => {
      const isSample = sample !== undefined && a.content_type === sample.contentType && a.bytes.length === sample.bytes.length && a.bytes.every((b, i) => b === sample.bytes[i]);
      const folder = a.folder_id === null ? null : (folderName.get(a.folder_id) ?? null);
      return { a, title: a.title, folder, isSample };
    });

    this.#shape = {
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
      keys: keys.map((k) => ({
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
      generations: new LazyList(() => mapped(merged(generations), (g) => this.#before.get(g) ?? this.#generation(g))),
      ledger: new LazyList(() =>
        mapped(merged(rows), (r) => ({
          id: r.id,
          account_id: r.account_id,
          amount_cc: r.amount_cc,
          // A row whose generation is no longer kept is old history, without its link.
          generation_id: linkOf(r, this.#kept),
          reason: r.reason,
          created_seconds_ago: ago(r.created_at),
        })),
      ),
      library: {
        folders: [...state.library.folders.values()].flat().map((f) => ({ id: f.id, account_id: f.account_id, name: f.name, created_seconds_ago: ago(f.created_at) })),
        assets: new LazyList(() =>
          mapped(assets, ({ a, title, folder, isSample }) => ({
            id: a.id,
            account_id: a.account_id,
            reference: a.reference,
            title,
            folder,
            ...(isSample ? {} : { content_type: a.content_type, data_base64: encodeBase64(a.bytes) }),
            created_seconds_ago: ago(a.created_at),
            expires_in_seconds: ahead(a.expires_at),
          })),
        ),
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

  /** The generations kept at the capture: in the state still, or seen by `keep` since. */
  readonly #kept = { has: (id: string) => this.#state.generations.has(id) || this.#beforeIds.has(id) };

  get name(): string {
    return this.#shape.name;
  }

  get description(): string {
    return this.#shape.description;
  }

  /** A generation is about to change or be dropped: it is written as it is now. */
  keep(gen: Generation): void {
    if (gen.created_at > this.#now || this.#before.has(gen)) return;
    this.#before.set(gen, this.#generation(gen));
    this.#beforeIds.add(gen.id);
  }

  /** Told by the engine until the capture is written: from `open()` to `close()`. */
  open(): this {
    this.#state.captures.add(this);
    return this;
  }

  close(): void {
    this.#state.captures.delete(this);
  }

  /** The file, whole. */
  file(): Scenario {
    return whole(this.#shape) as Scenario;
  }

  /** The file as JSON text (the same as `JSON.stringify(file())`), a slice at a time. */
  text(): Generator<string> {
    return jsonSlices(this.#shape, SLICE_CHARS);
  }

  #generation(g: Generation): ScenarioGeneration {
    const now = this.#now;
    return {
      id: g.id,
      account_id: g.account_id,
      key_id: g.key_id,
      model: g.model,
      prompt: g.prompt,
      title: g.title,
      status: g.status,
      ...(g.status === "FAILED" ? { error_reason: g.error_reason ?? "unknown" } : {}),
      created_seconds_ago: (now - g.created_at) / 1000,
      updated_seconds_ago: (now - g.updated_at) / 1000,
      charged_cc: g.charged_cc,
      refunded: g.refunded,
      free_quota_row: g.free_quota >= 0 ? g.free_quota : null,
      output_count: g.output_count,
      deleted: g.deleted,
      ...(g.steps.length > 0
        ? {
            planned: g.steps.map((s, i) => ({
              status: s.status,
              after_seconds: i === 0 && g.next_at !== null ? (g.next_at - now) / 1000 : s.afterMs / 1000,
              ...(s.reason ? { reason: s.reason } : {}),
              ...(s.late ? { late: true } : {}),
            })),
          }
        : {}),
    };
  }
}

function* mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Generator<U> {
  for (const item of items) yield f(item);
}

/** The state as a scenario file, at once. */
export function exportScenario(base: HubBase, parts: ExportParts): Scenario {
  return new ScenarioCapture(base, parts).file();
}
