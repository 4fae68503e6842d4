// The public API of the dev-tools package (@generation-hub/devtools): the simulator as a
// server you start from code, and the conformance suite as a library. The Mock Service
// Worker handlers have their own entry point (`@generation-hub/devtools/msw`), so an app
// that does not use MSW never loads it; nor do the Playwright fixtures
// (`@generation-hub/devtools/playwright`), which need @playwright/test.
export { startSimulator, Hub, HubControl, ControlError, demoKeys, demoAccounts, DEFAULT_BODY_LIMIT, ScenarioError, shippedNames, FaultError } from "./simulator/index.ts";
export type { SimulatorOptions, RunningSimulator, ControlTransport, HttpControlOptions, HubOptions, AssetSource, SimRequest, SimResponse, StreamSink, Scenario, ScenarioFile, FaultSpec, FaultView, RequestExchange, RequestFilter, RequestSummary } from "./simulator/index.ts";
export { openSandbox, defaultHub, hubUrlFromEnv, DEFAULT_HUB_URL, type OpenSandboxOptions, type Sandbox } from "./simulator/runners/sandbox.ts";
export type { SandboxHandle, SandboxInfo } from "./simulator/index.ts";
export { Sandboxes, type SandboxLimits } from "./simulator/index.ts";
export * from "./conformance/index.ts";
