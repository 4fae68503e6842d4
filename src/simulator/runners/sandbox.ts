// A sandbox of a running simulator for a test runner in another process (vitest, jest, a
// Playwright worker): several suites or workers share one `generation-hub mock`, each test
// (or worker) in a hub of its own. The Playwright fixtures (playwright.ts) are made of it.
import { ControlError, HubControl, type SandboxInfo } from "../msw/control.ts";
import { roleOf } from "../state/sandbox-keys.ts";
import type { ScenarioFile } from "../state/scenario/format.ts";

/** Where a simulator listens unless told otherwise (`generation-hub mock`'s default). */
export const DEFAULT_HUB_URL = "http://127.0.0.1:4010";

/** The simulator's address: `HUB_BASE_URL` when set, else http://127.0.0.1:4010. */
export function hubUrlFromEnv(): string {
  return process.env.HUB_BASE_URL?.trim() || DEFAULT_HUB_URL;
}

export interface OpenSandboxOptions {
  /** The running simulator (default `HUB_BASE_URL`, then http://127.0.0.1:4010). */
  hubURL?: string;
  /** The scenario it starts from and resets to: a shipped name or a file (default: the simulator's starting scenario, the demo unless `--scenario`). */
  scenario?: string | ScenarioFile;
  /** The fetch to send with (default the global one). */
  fetch?: typeof fetch;
}

/** A hub of a test's own: where it answers, its keys, its control interface. */
export interface Sandbox {
  /** The sandbox's id (`sbx_…`); null for the default hub (a suite run without sandboxes). */
  id: string | null;
  /** The address that reaches it by its base path (`http://127.0.0.1:4010/sandboxes/sbx_…`): give it to a client that takes a base address. */
  baseURL: string;
  /** Its own key, with every scope; it reaches the sandbox by itself. */
  apiKey: string;
  /** Its copy of each scenario key by role (`keys.full`, `keys.readonly`, `keys.other`, ...); each reaches the sandbox by itself. */
  keys: Readonly<Record<string, string>>;
  /** Its control interface (reset, clock, advance, addFault, state, requests, ...), on this sandbox only. */
  control: HubControl;
  /** Ends it (its streams end, its keys stop working); a sandbox already gone is no error. */
  delete(): Promise<void>;
}

/** One line that says where no simulator answered, and how to start one. */
function unreachable(url: string, error: unknown): Error {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  return new Error(`No Generation Hub simulator answers at ${url} (${why}): start one (npx generation-hub mock, or startSimulator()), or point HUB_BASE_URL (the hubURL option) at it.`, { cause: error });
}

/**
 * Makes a sandbox on the running simulator at `hubURL` and answers it. Rejects with one
 * line when no simulator answers there, and with `ControlError` when the simulator
 * refuses (503 at `--max-sandboxes`, 400 for a scenario that is not valid).
 *
 * ```ts
 * const hub = await openSandbox();            // in beforeAll
 * const client = createHubClient({ baseUrl: hub.baseURL, apiKey: hub.apiKey });
 * await hub.control.advance(60);
 * await hub.delete();                          // in afterAll
 * ```
 */
export async function openSandbox(options: OpenSandboxOptions = {}): Promise<Sandbox> {
  const hubURL = (options.hubURL ?? hubUrlFromEnv()).replace(/\/+$/, "");
  const root = HubControl.overHttp(hubURL, options.fetch ? { fetch: options.fetch } : {});
  let made: SandboxInfo;
  try {
    made = (await root.createSandbox(options.scenario === undefined ? {} : { scenario: options.scenario })) as SandboxInfo;
  } catch (error) {
    if (error instanceof ControlError) throw error;
    throw unreachable(hubURL, error);
  }
  const control = root.sandbox(made.id);
  return {
    id: made.id,
    baseURL: made.base_url,
    apiKey: made.api_key,
    keys: made.keys,
    control,
    delete: async () => {
      await root.deleteSandbox(made.id).catch((error: unknown) => {
        if (!(error instanceof ControlError && (error.status === 410 || error.status === 404))) throw error;
      });
    },
  };
}

/**
 * The simulator's default hub in the shape of a sandbox, for a suite run without sandboxes
 * (one worker): reset before it is handed out; its keys are the scenario's own.
 */
export async function defaultHub(options: Omit<OpenSandboxOptions, "scenario"> = {}): Promise<Sandbox> {
  const hubURL = (options.hubURL ?? hubUrlFromEnv()).replace(/\/+$/, "");
  const control = HubControl.overHttp(hubURL, options.fetch ? { fetch: options.fetch } : {});
  try {
    await control.reset();
  } catch (error) {
    if (error instanceof ControlError) throw error;
    throw unreachable(hubURL, error);
  }
  const keys = Object.fromEntries((await control.keys()).map((k) => [roleOf(k.secret), k.secret]));
  return { id: null, baseURL: hubURL, apiKey: keys.full ?? Object.values(keys)[0] ?? "", keys, control, delete: async () => undefined };
}
