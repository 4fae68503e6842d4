// The hub simulator, composed in one place: its state and clock (state/), the engines
// that change them (domain/), the request pipeline (pipeline/) and the handlers
// (handlers/). `handle(request)` answers one request synchronously; nothing here knows
// about Node's http module or Mock Service Worker (the adapters do).
import { operationById } from "../contract/document.ts";
import { streamLimits } from "../contract/tables.ts";
import { schemaValidator, validateChosen } from "../contract/validator.ts";
import { recheckStreams } from "./domain/access.ts";
import type { CredentialResolver } from "./domain/credentials.ts";
import { EventHub } from "./domain/events.ts";
import { FaultPlan } from "./domain/faults.ts";
import { GenerationEngine } from "./domain/generations.ts";
import { Journal } from "./domain/journal.ts";
import { tokenResolver } from "./domain/oauth/grants.ts";
import { parseMarkers, stepsFrom } from "./domain/outcomes.ts";
import { quickValidator } from "./domain/quick-validators.ts";
import { RateLimiter } from "./domain/ratelimit.ts";
import { refuse, type Detail, type Refusal } from "./domain/refusal.ts";
import { SessionStore } from "./domain/sessions.ts";
import { controlHandlers, controlMount, mounts, operationHandlers } from "./handlers/index.ts";
import type { Handler } from "./pipeline/context.ts";
import { dispatch, refusalFor, type Mount, type Routes } from "./pipeline/dispatch.ts";
import { CONTROL_GUARD } from "./pipeline/guard.ts";
import type { BodyAnswer, SimRequest, SimResponse } from "./pipeline/exchange.ts";
import type { AdapterCheck } from "./pipeline/journal.ts";
import type { HubServices, SandboxDirectory } from "./pipeline/services.ts";
import type { HubBase } from "./state/base.ts";
import { SimClock } from "./state/clock.ts";
import { readFaults, type Fault } from "./state/faults.ts";
import { createState, type HubState } from "./state/hub-state.ts";
import { resolveOptions, type ResolvedOAuthOptions } from "./state/oauth.ts";
import { DEFAULT_JOURNAL_SIZE, DEFAULT_RATE_LIMITS, DEFAULT_TIMING, retentionOf, type AssetSource, type HubOptions, type RateLimitConfig, type Retention, type Timing } from "./state/options.ts";
import { ScenarioCapture } from "./state/scenario/export.ts";
import type { Scenario, ScenarioFile } from "./state/scenario/format.ts";
import { scenarioFrom } from "./state/scenario/read.ts";
import { seedScenario } from "./state/scenario/seed.ts";
import { withSandboxKeys } from "./state/sandbox-keys.ts";
import { scheduleFixtureEnds } from "./domain/subscriptions.ts";
import { foldLedger } from "./domain/ledger.ts";
import { keepThread } from "./domain/support.ts";
import { IdMaker } from "./state/util.ts";
import { DEFAULT_SCENARIO } from "./scenarios/index.ts";

export type { AssetFile, AssetSource, HubOptions, RateLimitConfig, Retention, Timing } from "./state/options.ts";
export type { Mount } from "./pipeline/dispatch.ts";
export type { Scenario, ScenarioFile } from "./state/scenario/format.ts";
export { ScenarioError, shippedNames } from "./state/scenario/read.ts";
export { FaultError, type Fault, type FaultSpec } from "./state/faults.ts";
export type { FaultView } from "./domain/faults.ts";

/**
 * Where a hub stands in a simulator server (sandboxes.ts makes its hubs with it): the
 * sandbox it is, and the server's sandboxes, which its control routes manage. A hub made
 * alone (`new Hub(options)`) is neither.
 */
export interface HubPlace {
  /** The sandbox's id (`sbx_…`): its scenarios get the sandbox's keys, its new keys route to it. */
  sandbox?: string;
  sandboxes?: SandboxDirectory;
}

/** The scenario a hub starts from: the option's, else the demo (without its records when `demoData` is false). */
function startingScenario(options: HubOptions): Scenario {
  if (options.scenario !== undefined) return scenarioFrom(options.scenario);
  const demo = scenarioFrom(DEFAULT_SCENARIO);
  if (options.demoData ?? true) return demo;
  return { ...demo, generations: [], ledger: undefined, library: { folders: [], assets: [] }, support_messages: [] };
}

export class Hub implements HubBase, HubServices {
  readonly options: HubOptions;
  readonly clock: SimClock;
  readonly timing: Timing;
  readonly retention: Retention;
  readonly assets: AssetSource;
  readonly publicUrl: string | undefined;
  readonly maxStreamsPerKey: number;
  readonly limiter: RateLimiter;
  readonly events: EventHub;
  readonly generations: GenerationEngine;
  readonly sessions: SessionStore;
  readonly oauthOptions: ResolvedOAuthOptions;
  readonly resolvers: readonly CredentialResolver[];
  readonly faults = new FaultPlan();
  /** The most recent exchanges, masked (`journalSize`; the inspector at /_sim/ui/ and `control.requests()` read it). */
  readonly journal: Journal;
  /** Handlers by operationId and the mounts outside the contract (storage, site, consent, /_sim/). */
  readonly routes: Routes;
  ids = new IdMaker();
  state: HubState;
  /** The scenario of the options (the demo by default): what reset goes back to. */
  readonly #starting: Scenario;
  /** The scenario in force: the starting one, or one loaded since the last reset. */
  #scenario: Scenario;
  /** The options' faults, read once: in force from the start and after every reset. */
  readonly #optionFaults: readonly Fault[];
  readonly sandbox: string | undefined;
  readonly sandboxes: SandboxDirectory | undefined;
  readonly keyPrefix: string;

  /**
   * Throws ScenarioError when `options.scenario` is not a valid scenario (or a shipped
   * name), FaultError when `options.faults` holds a fault that is not valid.
   */
  constructor(options: HubOptions = {}, place: HubPlace = {}) {
    const limits = streamLimits();
    this.options = options;
    this.sandbox = place.sandbox;
    this.sandboxes = place.sandboxes;
    this.keyPrefix = place.sandbox === undefined ? "ghk_sim_" : `ghk_${place.sandbox}_sim_`;
    this.#optionFaults = options.faults === undefined ? [] : readFaults(options.faults, "faults");
    this.#starting = this.#own(startingScenario(options));
    this.#scenario = this.#starting;
    this.#restartFaults(this.#scenario);
    this.clock = new SimClock({ speed: options.clockSpeed ?? 1, start: options.startTime });
    this.timing = { ...DEFAULT_TIMING, ...options.timing, runningMs: { ...DEFAULT_TIMING.runningMs, ...options.timing?.runningMs } };
    this.retention = retentionOf(options);
    this.assets = options.assets ?? (() => undefined);
    this.publicUrl = options.publicUrl?.replace(/\/+$/, "");
    this.maxStreamsPerKey = options.maxStreamsPerKey ?? limits.maxStreamsPerKey;
    this.limiter = new RateLimiter(this.clock, this.#rateLimits());
    this.state = createState(this.clock.now(), options, this.#scenario);
    this.events = new EventHub(
      this.clock,
      this.state.epoch,
      (options.retentionDays ?? limits.retentionDays) * 86_400_000,
      (options.heartbeatSeconds ?? limits.heartbeatSeconds) * 1000,
      this.retention.events,
    );
    this.journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
    // A generation moving on the clock changes the state without a request: watchers hear of it.
    this.events.onEmit = () => this.journal.stateChanged();
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
    if (options.control !== false) all.push(controlMount(controlHandlers, CONTROL_GUARD));
    this.routes = { handlers, mounts: all };
    this.#afterReset();
  }

  /** Answers one request. Synchronous: a request is handled whole before the next. */
  handle(req: SimRequest): SimResponse {
    return dispatch(this, this.routes, req);
  }

  /**
   * An envelope answer for a request refused before it reached the pipeline (an adapter's
   * 413, say); `by` names the adapter's check (`host allow-list`, `body limit`), and the
   * request journal records the request under it.
   */
  refuse(req: SimRequest, code: string, message?: string, details?: Detail[], by?: AdapterCheck): BodyAnswer {
    return refusalFor(this, req, refuse(code, { ...(message ? { message } : {}), ...(details ? { details } : {}) }), by);
  }

  /** The answer of a refusal made before the pipeline (the front door's steps), recorded in the journal under `by`. */
  refused(req: SimRequest, refusal: Refusal, by: AdapterCheck): BodyAnswer {
    return refusalFor(this, req, refusal, by);
  }

  /** The scenario in force: the one loaded since the last reset, else the starting one. */
  get scenario(): Scenario {
    return this.#scenario;
  }

  /** The scenario of the options (the demo by default): what reset goes back to. */
  get startingScenario(): Scenario {
    return this.#starting;
  }

  /**
   * Puts a scenario (a shipped name or a parsed file) in force until the next reset: open
   * streams end, history and ids of the old state become unknown, the faults are the
   * options' and the scenario's; the clock goes on as it was. Throws ScenarioError (and
   * changes nothing) when it is not valid.
   */
  loadScenario(given: string | ScenarioFile): void {
    const scenario = this.#own(scenarioFrom(given));
    this.#restartFaults(scenario); // throws (and changes nothing) when its fault ids clash with the options'
    this.#scenario = scenario;
    this.#renew();
  }

  /** The scenario as this hub holds it: a sandbox's with the sandbox's keys added (state/sandbox-keys.ts). */
  #own(scenario: Scenario): Scenario {
    return this.sandbox === undefined ? scenario : withSandboxKeys(scenario, this.sandbox);
  }

  /** The options' faults, then the scenario's, their counts and draws anew. */
  #restartFaults(scenario: Scenario): void {
    this.faults.restart([
      ...this.#optionFaults.map((fault) => ({ fault, origin: "options" as const })),
      ...scenario.faults.map((fault) => ({ fault, origin: "scenario" as const })),
    ]);
  }

  /** The current state as a scenario file (name and description: the loaded scenario's unless given). */
  exportScenario(header: { name?: string; description?: string } = {}): Scenario {
    return this.captureScenario(header).file();
  }

  /** The current state, to be written as a scenario file later (`text()` a slice at a time). */
  captureScenario(header: { name?: string; description?: string } = {}): ScenarioCapture {
    return new ScenarioCapture(this, {
      name: header.name ?? this.#scenario.name,
      description: header.description ?? this.#scenario.description,
      rateLimits: this.limiter.config,
      windows: this.limiter.spent(),
      faults: this.faults.exported(),
    });
  }

  /**
   * Back to the start, so each test of a suite that resets before it starts alike: the
   * starting scenario (a scenario loaded since is gone), the options' faults and its own
   * (counts and draws anew), the clock's starting speed; open streams end, history and ids
   * of the old state become unknown; the request journal starts empty (the reset itself is
   * its first entry). The clock's time goes on from where it is (times of the scenario
   * count from now).
   */
  reset(): void {
    this.#scenario = this.#starting;
    this.#restartFaults(this.#scenario);
    this.journal.clear();
    this.clock.setSpeed(this.options.clockSpeed ?? 1);
    this.#renew();
  }

  /** A new state from the scenario in force. */
  #renew(): void {
    for (const stream of [...this.events.openStreams]) this.events.end(stream);
    this.clock.clear();
    this.limiter.reset();
    this.limiter.config = this.#rateLimits();
    this.generations.reset();
    this.ids = new IdMaker();
    this.state = createState(this.clock.now(), this.options, this.#scenario);
    this.events.reset(this.state.epoch);
    this.#afterReset();
  }

  /** The simulator's defaults, then the scenario's, then the options' (flags win). */
  #rateLimits(): RateLimitConfig {
    const s = this.#scenario.rate_limits;
    const given = { windowSeconds: s.window_seconds, keyQuota: s.key_quota, accountQuota: s.account_quota, submitQuota: s.submit_quota, concurrency: s.concurrency };
    const own = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
    return { ...DEFAULT_RATE_LIMITS, ...own, ...this.options.rateLimits };
  }

  #afterReset(): void {
    for (const key of this.state.keys.values()) this.watchExpiry(key.expires_at);
    // An in-progress generation the scenario plans nothing for lives on as its prompt says.
    const moving = seedScenario(this, this.#scenario, (status, prompt, type) => stepsFrom(status, parseMarkers(prompt).outcome, type, this.timing) ?? []);
    for (const gen of moving) this.generations.restore(gen);
    // A scenario larger than the retention keeps what a running hub would have kept.
    for (const account of this.state.accounts.keys()) {
      this.generations.keepNewest(account);
      keepThread(this, account);
    }
    for (const rows of this.state.ledger.values()) foldLedger(rows, this.retention.ledgerRows);
    // A cancelled subscription of the scenario ends with its paid period, as one cancelled
    // through the subscription action does.
    scheduleFixtureEnds(this);
    const now = this.clock.now();
    this.limiter.restore(this.#scenario.rate_limits.spent.map((w) => ({
      window: w.window,
      id: (w.window === "key" ? w.key_id : w.account_id)!,
      used: w.used,
      start: now - Math.round(w.started_seconds_ago * 1000),
    })));
  }

  /**
   * A key or token that expires while a stream is open ends that stream (`terminated`).
   * Not remembered here: a reset clears the clock's tasks (a list of them grew with every
   * token issued).
   */
  watchExpiry(at: number | null): void {
    if (at !== null && at > this.clock.now()) this.clock.at(at, () => this.recheckStreams());
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
