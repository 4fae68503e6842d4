// The hub simulator as Mock Service Worker handlers: the entry point for unit tests,
// Storybook and browser runs. Browser-safe: nothing here (or in the hub below it)
// imports a Node built-in (test/simulator/msw-bundle.test.ts holds that).
export { createHubHandlers, DEFAULT_BASE_URL, type HubHandlers, type HubHandlersOptions } from "./handlers.ts";
export {
  ControlError,
  HubControl,
  type AccountChanges,
  type ClockView,
  type ControlGeneration,
  type ControlKey,
  type ControlCall,
  type ControlState,
  type ControlTransport,
  type ForcedOutcome,
  type HttpControlOptions,
  type KeyChanges,
  type LoadedScenario,
  type NewKey,
  type RequestExchange,
  type RequestFilter,
  type RequestSummary,
  type SandboxHandle,
  type SandboxInfo,
  type ScenarioSummary,
  type SessionView,
} from "./control.ts";
export { embeddedAssets } from "./assets.ts";
export { answerWithHub, refusalResponse, simRequestOf, toResponse } from "./exchange.ts";
export { DEFAULT_BODY_LIMIT } from "../http/body-limits.ts";
export { Hub, FaultError, type AssetFile, type AssetSource, type Fault, type FaultSpec, type FaultView, type HubOptions, type RateLimitConfig, type Timing } from "../hub.ts";
export type { SimRequest, SimResponse, StreamSink } from "../pipeline/exchange.ts";
export { demoAccounts, demoKeys } from "../state/fixtures/accounts.ts";
export { ScenarioError, shippedNames, type Scenario, type ScenarioFile } from "../hub.ts";
