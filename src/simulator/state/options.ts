// The simulator's options (`new Hub(options)`, `startSimulator(options)`, the CLI's flags)
// and their defaults. They live in the lowest layer because every layer reads them.
import type { FaultSpec } from "./faults.ts";
import type { OAuthOptions } from "./oauth.ts";
import type { ScenarioFile } from "./scenario/format.ts";
import type { SessionOptions } from "./sessions.ts";

export interface AssetFile {
  contentType: string;
  fileName: string;
  bytes: Uint8Array;
}

/** Result files by output kind (`image`, `video`, `model`); the adapter supplies the bytes. */
export type AssetSource = (kind: string) => AssetFile | undefined;

export interface RateLimitConfig {
  windowSeconds: number;
  /** Requests per window for one key (`default`). */
  keyQuota: number;
  /** Requests per window for the whole account (`account`). */
  accountQuota: number;
  /** Accepted submits per window for the whole account (reason `submit_rate`). */
  submitQuota: number;
  /** Generations in progress at once per account (reason `concurrency`). */
  concurrency: number;
}

/** A window under way: a key's requests (`key`), an account's (`account`) or its accepted submits (`submit`). */
export interface SpentWindow {
  window: "key" | "account" | "submit";
  /** The key's id, or the account's. */
  id: string;
  used: number;
  /** Simulated time of the window's first request. */
  start: number;
}

/** The seed does not show the quotas or the window length: these are the simulator's. */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  windowSeconds: 60,
  keyQuota: 300,
  accountQuota: 900,
  submitQuota: 60,
  concurrency: 8,
};

export interface Timing {
  /** Simulated milliseconds spent in each state. */
  queuedMs: number;
  pendingMs: number;
  runningMs: Readonly<Record<string, number>>;
  slowMs: number;
  holdMs: number;
  lateMs: number;
}

export const DEFAULT_TIMING: Timing = {
  queuedMs: 1_000,
  pendingMs: 1_000,
  runningMs: { video: 8_000, image: 3_000, upscale: 3_000, model_3d: 6_000 },
  slowMs: 300_000,
  holdMs: 10_000,
  lateMs: 10_000,
};

/**
 * The default timing with every duration multiplied by `factor` (the mock's --timing-scale:
 * 0.1 finishes a video in about a second, for a CI run that waits on generations).
 */
export function scaledTiming(factor: number): Timing {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError(`the timing scale is a number above 0, got ${JSON.stringify(factor)}`);
  const scale = (ms: number) => Math.round(ms * factor);
  const t = DEFAULT_TIMING;
  return {
    queuedMs: scale(t.queuedMs),
    pendingMs: scale(t.pendingMs),
    runningMs: Object.fromEntries(Object.entries(t.runningMs).map(([type, ms]) => [type, scale(ms)])),
    slowMs: scale(t.slowMs),
    holdMs: scale(t.holdMs),
    lateMs: scale(t.lateMs),
  };
}

/** Library numbers the seed does not show (a folder maximum exists; the file lifetime). */
export const DEFAULT_FOLDER_LIMIT = 50;
export const DEFAULT_UPLOAD_LIFETIME_DAYS = 30;
export const DEFAULT_SIGNATURE_SECONDS = 900;

/**
 * How much the hub keeps, so a simulator left running for days stays the same size. The
 * API's requirements give only the event history's 7 days (`retentionDays`); these numbers
 * are the simulator's (the simulator guide, "Decisions where the requirements are silent").
 */
export interface Retention {
  /** Generations kept per account, the newest; an older one is dropped and answers 404 like a missing one. */
  generations: number;
  /** Seconds an `Idempotency-Key` is remembered (no longer than its generation is kept). */
  idempotencySeconds: number;
  /** Ledger rows kept per account; older rows are folded into one opening row, so the rows still add up to the balance. */
  ledgerRows: number;
  /** Events kept per account besides the 7 days; a `Last-Event-ID` before them answers `reset` (`cursor_expired`). */
  events: number;
  /** Items of an account's support thread (its messages and its reports) kept, the newest. */
  supportMessages: number;
  /** Uploaded files (library assets) kept per account, the newest; an older one is forgotten as an expired one is. */
  assets: number;
}

export const DEFAULT_RETENTION: Retention = {
  generations: 10_000,
  idempotencySeconds: 86_400,
  ledgerRows: 20_000,
  events: 50_000,
  supportMessages: 1_000,
  assets: 1_000,
};

/** The options' retention over the defaults; a count or lifetime below 1 is refused (RangeError). */
export function retentionOf(options: HubOptions): Retention {
  const r = { ...DEFAULT_RETENTION, ...options.retention };
  for (const [name, value] of Object.entries(r)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`retention.${name} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return r;
}
/** Exchanges the request journal keeps by default. */
export const DEFAULT_JOURNAL_SIZE = 200;

export interface HubOptions {
  /** Simulated seconds per real second; 0 freezes the clock (advance it explicitly). */
  clockSpeed?: number;
  /** Simulated start time (ms since the epoch); default: now. */
  startTime?: number;
  rateLimits?: Partial<RateLimitConfig>;
  timing?: Partial<Timing>;
  /** Heartbeat comment interval in real seconds (default from the contract: 15). */
  heartbeatSeconds?: number;
  /** Event history retention in simulated days (default from the contract: 7). */
  retentionDays?: number;
  /** What the hub keeps of each account's records (DEFAULT_RETENTION where not given). */
  retention?: Partial<Retention>;
  /** Open streams per key (default from the contract: 10). */
  maxStreamsPerKey?: number;
  /** Base address put in links (`output_urls`); default: the address the caller used. */
  publicUrl?: string;
  /**
   * The starting state, and what reset goes back to: a shipped scenario's name
   * (scenarios/index.ts) or a scenario file's parsed JSON. Default: the `demo` scenario.
   * An invalid one throws ScenarioError naming the fields at fault.
   */
  scenario?: string | ScenarioFile;
  /**
   * Without a `scenario`: false starts from the demo scenario without its generations,
   * library and support thread (its accounts and keys stay). Default true.
   */
  demoData?: boolean;
  assets?: AssetSource;
  /** Serve the control interface under /_sim/ (default true). */
  control?: boolean;
  /** Folders an account may hold (409 `folder_limit_reached`); default 50. */
  folderLimit?: number;
  /** Life of an uploaded file in simulated days (the asset's `expires_at`); default 30. */
  uploadLifetimeDays?: number;
  /** Life of an upload ticket's signature in simulated seconds (the ticket's `expires_at`); default 900. */
  uploadSignatureSeconds?: number;
  /** GET /v1/billing/subscription answers the bare record or null (`record`, default) or `{ subscription }` (`wrapped`). */
  subscriptionForm?: "record" | "wrapped";
  /** The site session cookie: Origin allowlist, session lifetime, its window's quota. */
  session?: SessionOptions;
  /** The OAuth authorization server: lifetimes, registration limits, auto-consent. */
  oauth?: OAuthOptions;
  /**
   * Exchanges the request journal keeps, the most recent (the inspector at /_sim/ui/ and
   * `control.requests()` read it); 0 turns it off. Default 200.
   */
  journalSize?: number;
  /**
   * Faults injected on purpose (state/faults.ts), in force from the start and after every
   * reset, before the scenario's. An invalid one throws FaultError naming the fields at fault.
   */
  faults?: readonly FaultSpec[];
}
