// The hub simulator's core: state, clock, limiter, event hub and generations engine,
// and `handle(request)`, which answers one request synchronously. Nothing here knows
// about Fastify or Node's http module.
import { operationById, schemaValidator, streamLimits, validateChosen } from "../contract/index.ts";
import { SimClock } from "./state/clock.ts";
import type { Ctx, Handler } from "./pipeline/context.ts";
import { authenticate, accountRefusal, scopeRefusal, type CredentialResolver } from "./domain/credentials.ts";
import { controlHandler } from "./handlers/control/core.ts";
import { dispatch, refusalFor } from "./pipeline/dispatch.ts";
import { GenerationEngine } from "./domain/generations.ts";
import { envelope, Refusal, refuse, type Detail } from "./domain/refusal.ts";
import type { SimRequest, SimResponse } from "./pipeline/exchange.ts";
import { EventHub } from "./domain/events.ts";
import { coreHandlers } from "./handlers/index.ts";
import { DEFAULT_TIMING, type Timing } from "./domain/outcomes.ts";
import { RateLimiter, type RateLimitConfig } from "./domain/ratelimit.ts";
import { seedDemoGenerations } from "./state/fixtures/generations.ts";
import { createState, type HubState } from "./state/hub-state.ts";
import { IdMaker } from "./state/util.ts";
import { quickValidator } from "./domain/quick-validators.ts";
import { installLibrary } from "./handlers/install-library.ts";
import { installSite } from "./handlers/install-site.ts";
import type { OAuthOptions } from "./domain/oauth/index.ts";
import type { SessionOptions } from "./domain/sessions.ts";

export interface AssetFile {
  contentType: string;
  fileName: string;
  bytes: Uint8Array;
}

/** Result files by output kind (`image`, `video`, `model`); the adapter supplies the bytes. */
export type AssetSource = (kind: string) => AssetFile | undefined;

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
  /** Open streams per key (default from the contract: 10). */
  maxStreamsPerKey?: number;
  /** Base address put in links (`output_urls`); default: the address the caller used. */
  publicUrl?: string;
  /** Seed the demo account with a few finished generations (default true). */
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
}

/** A control route of part 2 under /_sim/: answers undefined when the path is not its own. */
export type ControlRoute = (ctx: Ctx, parts: readonly string[]) => SimResponse | Refusal | undefined;

export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  windowSeconds: 60,
  keyQuota: 300,
  accountQuota: 900,
  submitQuota: 60,
  concurrency: 8,
};

export interface Mount {
  /** Path prefix outside `/v1` (`/storage/`, `/site/`). */
  prefix: string;
  handle: (ctx: Ctx) => SimResponse | Refusal;
}

export class Hub {
  readonly clock: SimClock;
  readonly limiter: RateLimiter;
  readonly events: EventHub;
  readonly engine: GenerationEngine;
  ids = new IdMaker();
  readonly timing: Timing;
  readonly handlers = new Map<string, Handler>();
  readonly resolvers: CredentialResolver[] = [];
  readonly mounts: Mount[] = [];
  /** Control routes beyond the core's (`/_sim/...`), asked in order when the core has none. */
  readonly controlRoutes: ControlRoute[] = [];
  readonly options: HubOptions;
  readonly maxStreamsPerKey: number;
  readonly publicUrl: string | undefined;
  readonly assets: AssetSource;
  state: HubState;
  #demoData: boolean;
  #keyExpiries: { cancel(): void }[] = [];

  constructor(options: HubOptions = {}) {
    const limits = streamLimits();
    this.clock = new SimClock({ speed: options.clockSpeed ?? 1, start: options.startTime });
    this.limiter = new RateLimiter(this.clock, { ...DEFAULT_RATE_LIMITS, ...options.rateLimits });
    this.timing = { ...DEFAULT_TIMING, ...options.timing, runningMs: { ...DEFAULT_TIMING.runningMs, ...options.timing?.runningMs } };
    this.maxStreamsPerKey = options.maxStreamsPerKey ?? limits.maxStreamsPerKey;
    this.publicUrl = options.publicUrl?.replace(/\/+$/, "");
    this.assets = options.assets ?? (() => undefined);
    this.#demoData = options.demoData ?? true;
    this.options = options;
    this.state = createState(this.clock.now());
    this.events = new EventHub(
      this.clock,
      this.state.epoch,
      (options.retentionDays ?? limits.retentionDays) * 86_400_000,
      (options.heartbeatSeconds ?? limits.heartbeatSeconds) * 1000,
    );
    this.engine = new GenerationEngine(this);
    this.use(coreHandlers);
    installLibrary(this);
    installSite(this, { session: options.session, oauth: options.oauth });
    if (options.control !== false) this.mount({ prefix: "/_sim/", handle: controlHandler });
    this.#afterReset();
  }

  /** Answers one request. Synchronous: a request is handled whole before the next. */
  handle(req: SimRequest): SimResponse {
    return dispatch(this, req);
  }

  /** An envelope answer for a request refused before it reached the pipeline. */
  refuse(req: SimRequest, code: string, message?: string, details?: Detail[]): SimResponse {
    return refusalFor(this, req, refuse(code, { ...(message ? { message } : {}), ...(details ? { details } : {}) }));
  }

  /** Registers handlers by operationId (part 2 adds its resources the same way). */
  use(handlers: Readonly<Record<string, Handler>>): void {
    for (const [operationId, handler] of Object.entries(handlers)) {
      operationById(operationId); // fails loudly on a name the contract does not have
      this.handlers.set(operationId, handler);
    }
  }

  mount(mount: Mount): void {
    this.mounts.push(mount);
  }

  /** Back to the fixtures: open streams end, history and ids of the old state become unknown. */
  reset(): void {
    for (const stream of [...this.events.openStreams]) this.events.end(stream);
    this.clock.clear();
    this.limiter.reset();
    this.engine.reset();
    this.ids = new IdMaker();
    this.state = createState(this.clock.now());
    this.events.reset(this.state.epoch);
    this.#afterReset();
  }

  #afterReset(): void {
    for (const t of this.#keyExpiries) t.cancel();
    this.#keyExpiries = [];
    for (const key of this.state.keys.values()) this.watchExpiry(key.expires_at);
    if (this.#demoData) seedDemoGenerations(this);
  }

  /** A key that expires while a stream is open ends that stream (`terminated`). */
  watchExpiry(at: number | null): void {
    if (at !== null && at > this.clock.now()) this.#keyExpiries.push(this.clock.at(at, () => this.recheckStreams()));
  }

  ledger(accountId: string, amount: number, generationId: string | null, reason: string | null): void {
    const now = this.clock.now();
    this.state.ledger.push({ id: this.ids.next("txn_", now), account_id: accountId, amount_cc: amount, generation_id: generationId, reason, created_at: now });
  }

  /**
   * Re-runs the refusal ladder for every open stream; a stream whose access was
   * withdrawn gets `terminated` with the refusal a reconnect would get.
   */
  recheckStreams(): void {
    const streamOperation = operationById("streamGenerationEvents");
    for (const stream of [...this.events.openStreams]) {
      let refusal: Refusal | undefined;
      if (!this.state.api_enabled) refusal = refuse("api_disabled");
      else {
        const credential = authenticate(this.state, this.resolvers, stream.authorization, stream.cookie, this.clock.now(), this.publicUrl ?? "");
        if (credential instanceof Refusal) refusal = credential;
        else refusal = accountRefusal(this.state.accounts.get(credential.accountId)) ?? scopeRefusal(credential, streamOperation, "");
      }
      if (refusal) this.events.terminate(stream, envelope(refusal, stream.requestId, stream.lang));
    }
  }

  /**
   * Compiles the request validators ahead of the first request that needs them (the
   * contract's validators compile on first use, which would otherwise slow the first
   * submit). Call once the server answers.
   */
  warm(): void {
    for (const name of ["GenerationStatusRequest", "GenerationReportRequest"]) schemaValidator(name)({});
    quickValidator("SubmitRequest")({});
    validateChosen("SubmitRequest", { type: "video" });
  }

  /** Ends every stream and stops the clock (server shutdown). */
  shutdown(): void {
    for (const stream of [...this.events.openStreams]) this.events.end(stream);
    this.clock.stop();
  }
}
