// The hub as the pipeline and the handlers see it (`ctx.hub`): the domain's state and
// engines, and what changes them as a whole. hub.ts composes one; nothing below it
// imports hub.ts.
import type { CredentialResolver } from "../domain/credentials.ts";
import type { EventHub } from "../domain/events.ts";
import type { FaultPlan } from "../domain/faults.ts";
import type { GenerationEngine } from "../domain/generations.ts";
import type { Journal } from "../domain/journal.ts";
import type { RateLimiter } from "../domain/ratelimit.ts";
import type { SessionStore } from "../domain/sessions.ts";
import type { Refusal } from "../domain/refusal.ts";
import type { HubBase } from "../state/base.ts";
import type { ResolvedOAuthOptions } from "../state/oauth.ts";
import type { ScenarioCapture } from "../state/scenario/export.ts";
import type { Scenario, ScenarioFile } from "../state/scenario/format.ts";
import type { SimRequest, SimResponse } from "./exchange.ts";

/** A sandbox as the control interface shows it (`GET /_sim/sandboxes`). */
export interface SandboxView {
  id: string;
  /** The name of the scenario it started from (what its reset goes back to). */
  scenario: string;
  created_at: string;
  last_used_at: string;
  /** When it ends unless a request or an open stream keeps it: its last use and the idle period. */
  expires_at: string;
  open_streams: number;
  /** The sandbox's own key (every scope); it reaches the sandbox by itself. */
  api_key: string;
  /** Its copy of each scenario key by role (`full` for ghk_demo_full, ...); each reaches the sandbox by itself. */
  keys: Record<string, string>;
}

/**
 * The sandboxes of a simulator server, as the control routes see them (sandboxes.ts keeps
 * them): each a hub of its own, made from a scenario. A hub made alone (`new Hub()`, the
 * Mock Service Worker handlers) has none.
 */
export interface SandboxDirectory {
  /** A new sandbox from a scenario (a shipped name or a file; the demo by default), or the refusal (the cap reached, a scenario not valid). */
  create(scenario: string | ScenarioFile | undefined): SandboxView | Refusal;
  list(): SandboxView[];
  /** A sandbox by id; a refusal saying it never existed, or that it ended. */
  find(id: string): SandboxView | Refusal;
  /** Ends a sandbox (its streams end, its keys stop working); the refusal when there is none. */
  remove(id: string): SandboxView | Refusal;
  /** Answers a request as the front door routes it (a sandbox's base path, key, header or cookie), without the server's own steps: the in-process transports'. */
  handle(req: SimRequest): SimResponse;
}

export interface HubServices extends HubBase {
  readonly limiter: RateLimiter;
  readonly events: EventHub;
  readonly generations: GenerationEngine;
  readonly sessions: SessionStore;
  readonly oauthOptions: ResolvedOAuthOptions;
  /** Who a credential is, beyond API keys: the session cookie, OAuth access tokens. */
  readonly resolvers: readonly CredentialResolver[];
  readonly maxStreamsPerKey: number;
  /** The faults in force (domain/faults.ts): the pipeline asks it once per request. */
  readonly faults: FaultPlan;
  /** The request journal (the inspector's and `control.requests()`'s); the pipeline's journal stage records into it. */
  readonly journal: Journal;
  /** The scenario in force: the one loaded since the last reset, else the starting one. */
  readonly scenario: Scenario;
  /** The scenario of the options: what reset goes back to. */
  readonly startingScenario: Scenario;
  /** Back to the start (the starting scenario, faults and clock speed): open streams end, history and ids of the old state become unknown. */
  reset(): void;
  /** Puts a scenario in force until the next reset (throws ScenarioError when it is not valid). */
  loadScenario(given: string | ScenarioFile): void;
  /** The current state as a scenario file. */
  exportScenario(header?: { name?: string; description?: string }): Scenario;
  /** The current state, to be written as a scenario file a slice at a time. */
  captureScenario(header?: { name?: string; description?: string }): ScenarioCapture;
  /** The sandbox this hub is (`sbx_…`), or undefined for the default hub (or a hub made alone). */
  readonly sandbox: string | undefined;
  /** The server's sandboxes (`/_sim/sandboxes`); undefined for a hub made alone. */
  readonly sandboxes: SandboxDirectory | undefined;
  /** How the secret of a key made through `POST /_sim/keys` starts: `ghk_sim_`, or the sandbox's `ghk_sbx_…_sim_` (so it routes by itself). */
  readonly keyPrefix: string;
}
