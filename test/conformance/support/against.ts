// Runs the whole suite through the double that breaks `rule` (the simulator behind a
// rewriting proxy) and checks that exactly that rule fails (with the rules of the seed
// that state the same thing, and the simulator's own known findings).
import { expect, it } from "vitest";
import type { Report } from "../../../src/conformance/index.ts";
import { DOUBLES, type Double } from "./doubles.ts";
import { startProxy } from "./proxy.ts";
import { explain, failing, OPEN, runFull, SIMULATOR_FINDINGS, startSim } from "./run.ts";

export async function against(rule: string): Promise<Report> {
  const double = DOUBLES.find((d) => d.rule === rule);
  if (!double) throw new Error(`no double breaks ${rule}`);
  const sim = await startSim(double.simulator);
  const proxy = await startProxy(sim.url, double.make(sim));
  try {
    const report = await runFull(sim, proxy.url);
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([...new Set([rule, ...(double.also ?? []), ...SIMULATOR_FINDINGS])].sort());
    expect(brokenWording(report)).toEqual([]);
    return report;
  } finally {
    await proxy.close();
    await sim.close();
  }
}

export function failuresOf(report: Report, rule: string): string {
  return report.rows.find((r) => r.id === rule)!.failures.map((f) => f.message).join("\n");
}

/**
 * Runs the suite through a double, narrowed to its rules (`only`, with the checks that
 * make what they probe) to stay quick; a bug only generated inputs meet is run with them,
 * for its operations.
 */
export async function againstNarrow(d: Double, generate: boolean): Promise<Report> {
  const sim = await startSim({ ...d.simulator, ...(generate ? OPEN : {}) });
  const proxy = await startProxy(sim.url, d.make(sim));
  try {
    const only = [d.rule, ...(d.also ?? []), ...(d.with ?? [])];
    return await runFull(sim, proxy.url, { quick: true, only, ...(generate ? { generate: { perOperation: 100, seed: 1, operations: d.operations } } : {}) });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

/**
 * One test per double: the narrowed run fails exactly its rules, and one of its failures
 * says what `says` (by the double's title) expects.
 */
export function failsEach(doubles: readonly Double[], says: Readonly<Record<string, RegExp>>, rules?: readonly string[]): void {
  it(`has a double${rules ? ` for each of ${rules.join(", ")}` : ""}, each found by the default run, each with what its failure says`, () => {
    expect(doubles.length).toBeGreaterThan(0);
    if (rules) expect(new Set(doubles.map((d) => d.rule))).toEqual(new Set(rules));
    for (const d of doubles) {
      expect(d.found, d.title).toBe("default");
      expect(says[d.title], d.title).toBeDefined();
    }
  });
  for (const d of doubles) {
    const rules = [d.rule, ...(d.also ?? [])];
    // Each run has a simulator and proxy of its own: they go concurrently, overlapping their waits.
    it.concurrent(`${rules.join(" ")}: fails a server that ${d.title}`, { timeout: 120_000 }, async () => {
      const report = await againstNarrow(d, false);
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([...rules].sort());
      const said = failuresOf(report, d.rule).split("\n");
      expect(said.some((m) => says[d.title]?.test(m)), said.join("\n")).toBe(true);
      expect(brokenWording(report)).toEqual([]);
    });
  }
}

/** Messages of a report that show a value the suite could not read (`undefined`, `NaN`, `[object Object]`) instead of saying what was missing. */
export function brokenWording(report: Report): string[] {
  const texts = report.rows.flatMap((r) => [...r.failures.map((f) => f.message), ...r.notes, r.reason ?? ""]);
  return texts.filter((t) => /\bundefined\b|\bNaN\b|\[object Object\]/.test(t));
}
