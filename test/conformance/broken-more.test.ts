// The broken servers added for the benchmark (test/conformance/support/doubles.ts after the
// first seventeen, which broken-servers.test.ts and broken-areas.test.ts run whole): each
// one injected bug in front of the simulator, and the suite fails exactly the rule it
// names (with the rules the same bug breaks too). To stay quick each run is narrowed to
// those rules (`only`, with the checks that make what they probe); a bug only generated
// inputs meet is run with them, for its operations, and is not found without them.
// bench/conformance.ts runs the whole suite against every double, without and with
// generated inputs.
import { describe, expect, it } from "vitest";
import type { Double } from "./support/doubles.ts";
import { DOUBLES } from "./support/doubles.ts";
import { ROUTE_DOUBLES } from "./support/doubles-routes.ts";
import { startProxy } from "./support/proxy.ts";
import { explain, failing, runFull, startSim } from "./support/run.ts";

/** The doubles the whole-suite tests do not run (those of the properties over every route have tests of their own). */
const ADDED = DOUBLES.slice(17).filter((d) => !ROUTE_DOUBLES.includes(d));
const WIDE = { rateLimits: { keyQuota: 1_000_000, accountQuota: 1_000_000, submitQuota: 1_000_000, concurrency: 100_000 } };

async function quick(d: Double, generate: boolean) {
  const sim = await startSim(generate ? WIDE : {});
  const proxy = await startProxy(sim.url, d.make(sim));
  try {
    const only = [d.rule, ...(d.also ?? []), ...(d.with ?? [])];
    return await runFull(sim, proxy.url, { quick: true, only, ...(generate ? { generate: { perOperation: 100, seed: 1, operations: d.operations } } : {}) });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

describe("the conformance suite against the added broken servers", () => {
  it("has at least 30 broken servers, each with a title of its own, spread over the seed's areas", () => {
    expect(DOUBLES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(DOUBLES.map((d) => d.title)).size).toBe(DOUBLES.length);
    expect(new Set(DOUBLES.map((d) => d.area))).toEqual(new Set(["headers", "paging", "idempotency", "events", "auth ladder", "uploads", "library", "support", "oauth", "envelope", "generated inputs", "stateful"]));
    for (const d of DOUBLES.filter((x) => x.found === "generate")) expect(d.operations?.length, d.title).toBeGreaterThan(0);
  });

  for (const d of ADDED) {
    const rules = [d.rule, ...(d.also ?? [])];
    it(`${rules.join(" ")}: fails a server that ${d.title}${d.found === "generate" ? " (with generated inputs only)" : ""}`, { timeout: 90_000 }, async () => {
      const report = await quick(d, d.found === "generate");
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([...rules].sort());
      if (d.found === "generate") {
        const without = await quick(d, false);
        expect(failing(without), explain(without)).not.toContain(d.rule);
      }
    });
  }
});
