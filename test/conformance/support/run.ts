// Running the conformance suite against the simulator (directly or behind a double) in
// tests: a frozen simulated clock that the suite moves instead of sleeping, the demo
// keys for every role, and a short heartbeat so the heartbeat check is quick.
import { createHash, randomBytes } from "node:crypto";
import { runConformance, SUITE_REDIRECT_URI, type ConformanceOptions, type Report } from "../../../src/conformance/index.ts";
import type { RunExtras } from "../../../src/conformance/run/runner.ts";
import { DEMO_ACCOUNT, OPEN_WINDOWS, simulatorOptions } from "../../../src/conformance/run/simulator.ts";
import { HubControl } from "../../../src/simulator/msw/control.ts";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../../src/simulator/index.ts";

/**
 * The windows open (OPEN_WINDOWS, as the command line opens them for generated inputs),
 * and the generation slots too: unlike the command line's simulator, the tests' clock is
 * frozen and moves only when the suite moves it, so generations do not finish on their
 * own and the 8 slots would fill with generated submits.
 */
export const OPEN = { rateLimits: { ...OPEN_WINDOWS, concurrency: 100_000 } };

export async function startSim(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ port: 0, clockSpeed: 0, heartbeatSeconds: 1, ...options });
}

/** Runs `use` against a simulator of its own, closed afterwards whatever happens. */
export async function withSim<T>(options: SimulatorOptions, use: (sim: RunningSimulator) => Promise<T>): Promise<T> {
  const sim = await startSim(options);
  try {
    return await use(sim);
  } finally {
    await sim.close();
  }
}

/** The control interface of `sim`, through its typed client (the only way the suite and its tests reach `/_sim/`). */
export function controlOf(sim: RunningSimulator): HubControl {
  return HubControl.overHttp(sim.url);
}

/** Turns the simulator's OAuth auto-consent on (or off: `null`) for the account. */
export async function simulatorAutoConsent(sim: RunningSimulator, accountId: string | null = DEMO_ACCOUNT): Promise<void> {
  await controlOf(sim).setAutoConsent(accountId);
}

/**
 * Runs the whole suite (writes and spending allowed, a site session, OAuth auto-consent
 * declared, two keys with fewer scopes) against `baseUrl`, moving `sim`'s clock.
 */
export async function runFull(sim: RunningSimulator, baseUrl: string = sim.url, extra: Partial<ConformanceOptions> = {}, extras: RunExtras = {}): Promise<Report> {
  return runConformance({ ...(await simulatorOptions(sim)), baseUrl, settleSeconds: 120, ...extra }, extras);
}

export function failing(report: Report): string[] {
  return report.rows.filter((r) => r.verdict === "fail").map((r) => r.id).sort();
}

/** The failures of a report, readable in an assertion message. */
export function explain(report: Report): string {
  const lines = report.rows.filter((r) => r.verdict === "fail").map((r) => `${r.id}: ${r.failures.map((f) => `${f.message} [${f.request ?? ""}]`).join(" | ")}`);
  return [...lines, ...report.errors.map((e) => `check error in ${e.check}: ${e.message}`)].join("\n");
}

/**
 * Where the simulator departs from the seed today (each is a finding reported to its
 * owner). The suite must fail exactly these against the bare simulator; when one is
 * fixed the test says so and the entry goes.
 */
export const SIMULATOR_FINDINGS: readonly string[] = [];

/** An OAuth access token of the demo account, the way a client gets one from the simulator (registration, auto-consent, exchange). */
export async function simulatorAccessToken(sim: RunningSimulator, scope: string): Promise<string> {
  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const client = await json(await fetch(`${sim.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [SUITE_REDIRECT_URI] }) }));
  await simulatorAutoConsent(sim);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const q = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: SUITE_REDIRECT_URI, scope, state: "s", code_challenge: challenge, code_challenge_method: "S256" });
  const authorized = await fetch(`${sim.url}/oauth/authorize?${q}`, { redirect: "manual" });
  await authorized.arrayBuffer();
  const code = new URL(authorized.headers.get("location")!).searchParams.get("code")!;
  await simulatorAutoConsent(sim, null);
  const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: SUITE_REDIRECT_URI, code_verifier: verifier, client_id: client.client_id });
  const tokens = await json(await fetch(`${sim.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() }));
  if (typeof tokens.access_token !== "string") throw new Error(`no access token: ${JSON.stringify(tokens)}`);
  return tokens.access_token;
}
