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
import type { HubBase } from "../state/base.ts";
import type { ResolvedOAuthOptions } from "../state/oauth.ts";
import type { ScenarioCapture } from "../state/scenario/export.ts";
import type { Scenario, ScenarioFile } from "../state/scenario/format.ts";

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
}
