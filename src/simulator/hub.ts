// The hub simulator, composed in one place: its state and clock (state/), the engines
// that change them (domain/), the request pipeline (pipeline/) and the handlers
// (handlers/). `handle(request)` answers one request synchronously; nothing here knows
// about Fastify, Node's http module or Mock Service Worker (the adapters do).
import { operationById } from "../contract/document.ts";
import { streamLimits } from "../contract/tables.ts";
import { schemaValidator, validateChosen } from "../contract/validator.ts";
import { recheckStreams } from "./domain/access.ts";
import type { CredentialResolver } from "./domain/credentials.ts";
import { EventHub } from "./domain/events.ts";
import { GenerationEngine } from "./domain/generations.ts";
import { tokenResolver } from "./domain/oauth/grants.ts";
import { quickValidator } from "./domain/quick-validators.ts";
import { RateLimiter } from "./domain/ratelimit.ts";
import { refuse, type Detail } from "./domain/refusal.ts";
import { SessionStore } from "./domain/sessions.ts";
import { controlMount, controlRoutes, mounts, operationHandlers } from "./handlers/index.ts";
import type { Handler } from "./pipeline/context.ts";
import { dispatch, refusalFor, type Mount, type Routes } from "./pipeline/dispatch.ts";
import type { SimRequest, SimResponse } from "./pipeline/exchange.ts";
import type { HubServices } from "./pipeline/services.ts";
import type { HubBase } from "./state/base.ts";
import { SimClock } from "./state/clock.ts";
import { seedDemoGenerations } from "./state/fixtures/generations.ts";
import { seedDemoLibrary } from "./state/fixtures/library.ts";
import { seedDemoSupport } from "./state/fixtures/support.ts";
import { createState, type HubState } from "./state/hub-state.ts";
import { resolveOptions, type ResolvedOAuthOptions } from "./state/oauth.ts";
import { DEFAULT_RATE_LIMITS, DEFAULT_TIMING, type AssetSource, type HubOptions, type Timing } from "./state/options.ts";
import { IdMaker } from "./state/util.ts";

export type { AssetFile, AssetSource, HubOptions, RateLimitConfig, Timing } from "./state/options.ts";
export type { Mount } from "./pipeline/dispatch.ts";
export { DEFAULT_RATE_LIMITS } from "./state/options.ts";

export class Hub implements HubBase, HubServices {
  readonly options: HubOptions;
  readonly clock: SimClock;
  readonly timing: Timing;
  readonly assets: AssetSource;
  readonly publicUrl: string | undefined;
  readonly maxStreamsPerKey: number;
  readonly limiter: RateLimiter;
  readonly events: EventHub;
  readonly generations: GenerationEngine;
  readonly sessions: SessionStore;
  readonly oauthOptions: ResolvedOAuthOptions;
  readonly resolvers: readonly CredentialResolver[];
  /** Handlers by operationId and the mounts outside the contract (storage, site, consent, /_sim/). */
  readonly routes: Routes;
  ids = new IdMaker();
  state: HubState;
  #keyExpiries: { cancel(): void }[] = [];

  constructor(options: HubOptions = {}) {
    const limits = streamLimits();
    this.options = options;
    this.clock = new SimClock({ speed: options.clockSpeed ?? 1, start: options.startTime });
    this.timing = { ...DEFAULT_TIMING, ...options.timing, runningMs: { ...DEFAULT_TIMING.runningMs, ...options.timing?.runningMs } };
    this.assets = options.assets ?? (() => undefined);
    this.publicUrl = options.publicUrl?.replace(/\/+$/, "");
    this.maxStreamsPerKey = options.maxStreamsPerKey ?? limits.maxStreamsPerKey;
    this.limiter = new RateLimiter(this.clock, { ...DEFAULT_RATE_LIMITS, ...options.rateLimits });
    this.state = createState(this.clock.now(), options);
    this.events = new EventHub(
      this.clock,
      this.state.epoch,
      (options.retentionDays ?? limits.retentionDays) * 86_400_000,
      (options.heartbeatSeconds ?? limits.heartbeatSeconds) * 1000,
    );
    this.generations = new GenerationEngine(this, this.events);
    this.sessions = new SessionStore(this, options.session ?? {}, this.limiter.config.accountQuota);
    this.oauthOptions = resolveOptions(options.oauth);
    this.resolvers = [this.sessions.resolver(), tokenResolver(this)];
    const handlers = new Map<string, Handler>();
    for (const [operationId, handler] of Object.entries(operationHandlers)) {
      operationById(operationId); // fails loudly on a name the contract does not have
      handlers.set(operationId, handler);
    }
    const all: Mount[] = [...mounts];
    if (options.control !== false) all.push(controlMount(controlRoutes));
    this.routes = { handlers, mounts: all };
    this.#afterReset();
  }

  /** Answers one request. Synchronous: a request is handled whole before the next. */
  handle(req: SimRequest): SimResponse {
    return dispatch(this, this.routes, req);
  }

  /** An envelope answer for a request refused before it reached the pipeline (an adapter's 413, say). */
  refuse(req: SimRequest, code: string, message?: string, details?: Detail[]): SimResponse {
    return refusalFor(this, req, refuse(code, { ...(message ? { message } : {}), ...(details ? { details } : {}) }));
  }

  /** Back to the fixtures: open streams end, history and ids of the old state become unknown. */
  reset(): void {
    for (const stream of [...this.events.openStreams]) this.events.end(stream);
    this.clock.clear();
    this.limiter.reset();
    this.generations.reset();
    this.ids = new IdMaker();
    this.state = createState(this.clock.now(), this.options);
    this.events.reset(this.state.epoch);
    this.#afterReset();
  }

  #afterReset(): void {
    for (const t of this.#keyExpiries) t.cancel();
    this.#keyExpiries = [];
    for (const key of this.state.keys.values()) this.watchExpiry(key.expires_at);
    if (this.options.demoData ?? true) {
      seedDemoGenerations(this);
      seedDemoLibrary(this);
      seedDemoSupport(this);
    }
  }

  /** A key or token that expires while a stream is open ends that stream (`terminated`). */
  watchExpiry(at: number | null): void {
    if (at !== null && at > this.clock.now()) this.#keyExpiries.push(this.clock.at(at, () => this.recheckStreams()));
  }

  recheckStreams(): void {
    recheckStreams(this, this.events, this.resolvers);
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
