// The simulator as a target, for the command line without `--base-url` and for the
// project's own tests: its demo keys by role, and what a run needs besides them, made
// through its control interface's typed client (`HubControl`, never a raw request to
// `/_sim/`): two keys with fewer scopes, a site session, OAuth auto-consent, a published
// client ID metadata document. The checks never call `/_sim/`: they get these as options.
import { scopes as vocabulary } from "../../contract/index.ts";
import { demoKeys, startSimulator, type RunningSimulator } from "../../simulator/index.ts";
import { HubControl } from "../../simulator/msw/control.ts";
import { scaledTiming, type RateLimitConfig } from "../../simulator/state/options.ts";
import { SUITE_REDIRECT_URI, type ConformanceOptions, type KeyRole } from "../facts/given.ts";
import { simulatorControl } from "../target/control.ts";

/** The demo account the runs work as. */
export const DEMO_ACCOUNT = "acc_demo";

/** The simulator's demo keys by role (each reaches one refusal), and an OAuth token nobody has. */
export const DEMO_KEYS: Readonly<Record<KeyRole, string>> = {
  expired: "ghk_demo_expired",
  revoked: "ghk_demo_revoked",
  "no-api-access": "ghk_demo_noapi",
  suspended: "ghk_demo_suspended",
  terms: "ghk_demo_terms",
  "read-only": "ghk_demo_readonly",
  free: "ghk_demo_free",
  "spend-capped": "ghk_demo_capped",
  "oauth-invalid": "gho_conformance_unknown_token",
};

/** The address of the client ID metadata document a run publishes on the simulator. */
export const DOCUMENT_CLIENT = "https://conformance-client.example/oauth/client.json";

/**
 * The simulator's rate windows opened for runs of generated inputs, which send thousands of
 * requests: the key's window under the account's, as in the simulator's defaults (so the key
 * window still binds: LIM-1 reads another key's cost), and the 8 generation slots kept (LIM-5
 * meets a refusal for busy slots; generations finish within a second at --timing-scale 0.1).
 * The same as `generation-hub mock --key-quota 1000000 --account-quota 3000000 --submit-quota
 * 1000000` (docs/conformance.md, "Against the simulator in CI").
 */
export const OPEN_WINDOWS: Readonly<Pick<RateLimitConfig, "keyQuota" | "accountQuota" | "submitQuota">> = { keyQuota: 1_000_000, accountQuota: 3_000_000, submitQuota: 1_000_000 };

/**
 * Two keys of the demo account with fewer scopes, made through the control interface
 * (setup only): one holding `models:read` alone, one holding every other scope, so that
 * every route of a scope meets a key without it.
 */
export async function simulatorScopedKeys(control: HubControl, accountId = DEMO_ACCOUNT): Promise<string[]> {
  const keys: string[] = [];
  for (const scopes of [["models:read"], vocabulary.filter((s) => s !== "models:read")]) keys.push((await control.createKey({ account_id: accountId, scopes, purpose: "conformance: fewer scopes" })).secret);
  return keys;
}

/** Publishes a client ID metadata document listing the suite's redirect address. */
export async function simulatorClientDocument(control: HubControl, url = DOCUMENT_CLIENT): Promise<string> {
  await control.request("PUT", "oauth/documents", { url, document: { client_id: url, client_name: "Conformance check (document)", redirect_uris: [SUITE_REDIRECT_URI] } });
  return url;
}

/** A site session of the demo account, with the simulator's own address as its allowed Origin. */
export async function simulatorSession(control: HubControl, origin: string, accountId = DEMO_ACCOUNT): Promise<{ cookie: string; origin: string }> {
  return { cookie: (await control.startSession(accountId)).cookie, origin };
}

/**
 * What a run against the simulator at `sim` is given besides its address: the demo keys of
 * every role, two keys with fewer scopes, a site session, OAuth auto-consent declared (and
 * turned on), a published client ID metadata document, writes and spending allowed, and
 * its control interface (its clock moved instead of waited for).
 */
export async function simulatorOptions(sim: RunningSimulator): Promise<Omit<ConformanceOptions, "baseUrl">> {
  const control = HubControl.overHttp(sim.url);
  await control.setAutoConsent(DEMO_ACCOUNT);
  const secret = (s: string) => {
    if (!demoKeys().some((k) => k.secret === s)) throw new Error(`the simulator has no demo key ${s}`);
    return s;
  };
  return {
    apiKey: secret("ghk_demo_full"),
    otherApiKey: secret("ghk_demo_other"),
    keys: Object.fromEntries(Object.entries(DEMO_KEYS).map(([role, key]) => [role, key.startsWith("ghk_") ? secret(key) : key])),
    scopedKeys: await simulatorScopedKeys(control),
    session: await simulatorSession(control, sim.url),
    oauth: { autoConsent: true, clientDocument: await simulatorClientDocument(control) },
    allowWrites: true,
    allowSpend: true,
    // Its clock moved through the control interface instead of waited for (advanceClock).
    control: simulatorControl(sim.url),
  };
}

/**
 * The command line's own simulator (no `--base-url`): its heartbeat shortened and its
 * generations ten times quicker, as the CI section of the guide starts the standalone one,
 * to keep the run quick; with generated inputs, its windows open (OPEN_WINDOWS).
 */
export function startOwnSimulator(generate: boolean): Promise<RunningSimulator> {
  return startSimulator({ port: 0, heartbeatSeconds: 1, timing: scaledTiming(0.1), ...(generate ? { rateLimits: OPEN_WINDOWS } : {}) });
}
