// The hub's state: accounts, keys, generations, the idempotency store, the ledger,
// reports, the library, the support threads, sessions, what the payment provider knows
// and the OAuth server's records. Plain data, made anew from the scenario on reset (a new
// epoch makes the old state's cursors and event ids unknown).
import { accountsAt, keysAt, type Account, type ApiKey } from "./accounts.ts";
import { articles, type Article } from "./fixtures/knowledge.ts";
import { catalog, type ModelDef } from "./fixtures/catalog.ts";
import type { Generation, GenerationCapture, IdempotencyEntry, ReportRecord } from "./generations.ts";
import type { LedgerEntry } from "./ledger.ts";
import { emptyLibrary, type LibraryStore } from "./library.ts";
import { emptyOAuth, resolveOptions } from "./oauth.ts";
import type { OAuthState } from "./oauth.ts";
import type { HubOptions } from "./options.ts";
import type { Scenario } from "./scenario/format.ts";
import type { Session } from "./sessions.ts";
import type { ProviderFacts } from "./subscriptions.ts";
import { emptySupport, type SupportStore } from "./support.ts";
import { newTimeline, type Timeline } from "./timeline.ts";
import { entryOf, randomToken } from "./util.ts";

export interface HubState {
  /** Changes on every reset, so event ids and cursors of the old state are unknown. */
  epoch: string;
  api_enabled: boolean;
  accounts: Map<string, Account>;
  /** By secret. */
  keys: Map<string, ApiKey>;
  generations: Map<string, Generation>;
  /** Per account, in creation order (oldest first; the oldest beyond retention are dropped). */
  by_account: Map<string, Timeline<Generation>>;
  /** By account, then by `Idempotency-Key`. */
  idempotency: Map<string, Map<string, IdempotencyEntry>>;
  /** The credit ledger, per account, in creation order (domain/ledger.ts writes it). */
  ledger: Map<string, Timeline<LedgerEntry>>;
  /** By `<account>\n<client_msg_id>` and by support request id. */
  reports: Map<string, ReportRecord>;
  models: ModelDef[];
  articles: Article[];
  library: LibraryStore;
  support: SupportStore;
  /** Site sessions by cookie value. */
  sessions: Map<string, Session>;
  /** What the payment provider knows, by account (made on first use). */
  provider: Map<string, ProviderFacts>;
  oauth: OAuthState;
  /** Scenario exports under way (GET /_sim/scenario): a generation about to change is kept for them as it was. */
  captures: Set<GenerationCapture>;
}

/** A new state with the scenario's accounts and keys (scenario/seed.ts adds the rest). */
export function createState(now: number, options: HubOptions, scenario: Scenario): HubState {
  return {
    epoch: randomToken(6),
    api_enabled: scenario.api_enabled,
    accounts: accountsAt(scenario, now),
    keys: keysAt(scenario, now),
    generations: new Map(),
    by_account: new Map(),
    idempotency: new Map(),
    ledger: new Map(),
    reports: new Map(),
    models: catalog(),
    articles: articles(),
    library: emptyLibrary(),
    support: emptySupport(),
    sessions: new Map(),
    provider: new Map(),
    oauth: emptyOAuth(resolveOptions(options.oauth)),
    captures: new Set(),
  };
}

/** Registers a generation (a new one, or a fixture restored at its final state). */
export function addGeneration(state: HubState, gen: Generation): void {
  state.generations.set(gen.id, gen);
  entryOf(state.by_account, gen.account_id, newTimeline<Generation>).add(gen);
}
