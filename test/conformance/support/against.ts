// Runs the whole suite through the double that breaks `rule` (the simulator behind a
// rewriting proxy) and checks that exactly that rule fails (with the rules of the seed
// that state the same thing, and the simulator's own known findings).
import { expect } from "vitest";
import type { Report } from "../../../src/conformance/index.ts";
import { DOUBLES } from "./doubles.ts";
import { startProxy } from "./proxy.ts";
import { explain, failing, runFull, SIMULATOR_FINDINGS, startSim } from "./run.ts";

export async function against(rule: string): Promise<Report> {
  const double = DOUBLES.find((d) => d.rule === rule);
  if (!double) throw new Error(`no double breaks ${rule}`);
  const sim = await startSim();
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

/** Messages of a report that show a value the suite could not read (`undefined`, `NaN`, `[object Object]`) instead of saying what was missing. */
export function brokenWording(report: Report): string[] {
  const texts = report.rows.flatMap((r) => [...r.failures.map((f) => f.message), ...r.notes, r.reason ?? ""]);
  return texts.filter((t) => /\bundefined\b|\bNaN\b|\[object Object\]/.test(t));
}
