// `@generation-hub/devtools/playwright`: Playwright's `test`, extended with a hub of each
// test's own on one running simulator (a sandbox, sandboxes.ts), so a suite runs on
// parallel workers against one `generation-hub mock` and no test sees another's state,
// clock, faults or journal.
//
//   hub          per test: { id, baseURL, apiKey, keys, control }, a new sandbox, deleted
//                after the test; its journal is attached to a test that failed
//   workerHub    per worker: one sandbox for the worker's tests (reset before each when
//                `hubScope: "worker"` makes it the `hub`)
//   context      the test's browser context, routed to its hub: the hub_sandbox cookie on
//                the simulator's address and on `baseURL` (the app's, whose dev-server proxy
//                passes it on), so a page with the demo keys built in reaches the test's hub
//
// Options (`test.use({ ... })` or the config's `use`): `hubURL` (default HUB_BASE_URL,
// then http://127.0.0.1:4010), `hubScenario` (the sandbox's scenario), `hubScope`
// ("test", or "worker": one sandbox per worker), `hubSandboxes` (false: the default hub,
// reset before each test, for a suite on one worker).
import { test as base, expect, type BrowserContext, type TestInfo } from "@playwright/test";
import type { ScenarioFile } from "../state/scenario/format.ts";
import { defaultHub, hubUrlFromEnv, openSandbox, type Sandbox } from "./sandbox.ts";

export { expect };
export { openSandbox, defaultHub, hubUrlFromEnv, type OpenSandboxOptions, type Sandbox } from "./sandbox.ts";

/** The test's hub: a sandbox (or the default hub with `hubSandboxes: false`). */
export type HubFixture = Sandbox;

export interface HubTestOptions {
  /** `"test"` (default): a sandbox per test. `"worker"`: the worker's sandbox, reset before each test. */
  hubScope: "test" | "worker";
}

export interface HubWorkerOptions {
  /** The running simulator (default HUB_BASE_URL, then http://127.0.0.1:4010). */
  hubURL: string;
  /** The scenario a sandbox starts from and resets to (default: the simulator's starting scenario). */
  hubScenario: string | ScenarioFile | undefined;
  /** false: no sandbox, the simulator's default hub (reset before each test): a suite on one worker. Default true. */
  hubSandboxes: boolean;
}

export interface HubTestFixtures {
  hub: HubFixture;
}

export interface HubWorkerFixtures {
  workerHub: HubFixture;
  /** The worker's sandbox, made on first use (internal). */
  _hubWorker: { get(): Promise<HubFixture> };
}

/** The cookie that routes a browser's requests to the sandbox, on each address the page talks to. */
export const SANDBOX_COOKIE = "hub_sandbox";

/** Routes the context to the hub: its cookie on the simulator's address and on the app's (`baseURL`). */
export async function routeContext(context: BrowserContext, hub: HubFixture, appURL?: string): Promise<void> {
  if (hub.id === null) return;
  const urls = new Set([new URL(hub.baseURL).origin, ...(appURL ? [new URL(appURL).origin] : [])]);
  await context.addCookies([...urls].map((url) => ({ name: SANDBOX_COOKIE, value: hub.id!, url })));
}

/**
 * A test that failed (or timed out, even one marked to fail) gets its hub's journal: every
 * request the test's hub answered since the test began, masked, newest first.
 */
async function attachJournal(hub: HubFixture, testInfo: TestInfo): Promise<void> {
  if (testInfo.status === "passed" || testInfo.status === "skipped") return;
  const rows = await hub.control.requests({ limit: 10_000 }).catch((error: unknown) => ({ error: String(error) }));
  await testInfo.attach("hub journal", { body: JSON.stringify(rows, null, 2), contentType: "application/json" });
}

export const test = base.extend<HubTestOptions & HubTestFixtures, HubWorkerOptions & HubWorkerFixtures>({
  hubURL: [hubUrlFromEnv(), { scope: "worker", option: true }],
  hubScenario: [undefined, { scope: "worker", option: true }],
  hubSandboxes: [true, { scope: "worker", option: true }],
  hubScope: ["test", { option: true }],

  _hubWorker: [
    async ({ hubURL, hubScenario, hubSandboxes }, use) => {
      let made: Promise<HubFixture> | undefined;
      await use({ get: () => (made ??= hubSandboxes ? openSandbox({ hubURL, scenario: hubScenario }) : defaultHub({ hubURL })) });
      if (made) await (await made).delete();
    },
    { scope: "worker" },
  ],

  workerHub: [async ({ _hubWorker }, use) => use(await _hubWorker.get()), { scope: "worker" }],

  hub: async ({ hubScope, hubURL, hubScenario, hubSandboxes, _hubWorker }, use, testInfo) => {
    let hub: HubFixture;
    if (hubScope === "worker") {
      hub = await _hubWorker.get();
      await hub.control.reset();
    } else {
      hub = hubSandboxes ? await openSandbox({ hubURL, scenario: hubScenario }) : await defaultHub({ hubURL });
    }
    await use(hub);
    await attachJournal(hub, testInfo);
    if (hubScope !== "worker") await hub.delete();
  },

  context: async ({ context, hub, baseURL }, use) => {
    await routeContext(context, hub, baseURL);
    await use(context);
  },
});
