// Running the conformance suite against the simulator (directly or behind a double) in
// tests: a frozen simulated clock that the suite moves instead of sleeping, the demo
// keys for every role, and a short heartbeat so the heartbeat check is quick.
import { runConformance, type ConformanceOptions, type Report } from "../../../src/conformance/index.ts";
import type { RunExtras } from "../../../src/conformance/runner.ts";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../../src/simulator/index.ts";

export async function startSim(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ port: 0, clockSpeed: 0, heartbeatSeconds: 1, ...options });
}

/** Every key the simulator's demo accounts offer, by role. */
export const DEMO_KEYS: NonNullable<ConformanceOptions["keys"]> = {
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

/** Runs the whole suite (writes and spending allowed) against `baseUrl`, moving `sim`'s clock. */
export function runFull(sim: RunningSimulator, baseUrl: string = sim.url, extra: Partial<ConformanceOptions> = {}, extras: RunExtras = {}): Promise<Report> {
  return runConformance({
    baseUrl,
    apiKey: "ghk_demo_full",
    otherApiKey: "ghk_demo_other",
    keys: DEMO_KEYS,
    allowWrites: true,
    allowSpend: true,
    settleSeconds: 120,
    advance: async (seconds) => {
      sim.hub.clock.advance(Math.round(seconds * 1000));
      sim.hub.recheckStreams();
    },
    ...extra,
  }, extras);
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
