// The broken servers added for the benchmark (test/conformance/support/doubles.ts after the
// first seventeen, which broken-servers.test.ts and broken-areas.test.ts run whole): each
// one injected bug in front of the simulator, and the suite fails exactly the rule it
// names (with the rules the same bug breaks too). To stay quick each run is narrowed to
// those rules (`only`, with the checks that make what they probe); a bug only generated
// inputs meet is run with them, for its operations, and is not found without them.
// bench/conformance.ts runs the whole suite against every double, without and with
// generated inputs. 32 narrowed runs, each with a simulator of its own (the generated ones
// sending a few hundred requests): they run concurrently, overlapping their waits.
import { describe, expect, it } from "vitest";
import { againstNarrow as quick } from "./support/against.ts";
import { DOUBLES } from "./support/doubles.ts";
import { ROUTE_DOUBLES } from "./support/doubles-routes.ts";
import { SEQUENCE_DOUBLES } from "./support/doubles-sequences.ts";
import { TIME_DOUBLES } from "./support/doubles-time.ts";
import { explain, failing } from "./support/run.ts";

/**
 * The doubles the whole-suite tests do not run: those of the properties over every route,
 * of bugs across calls and of bugs that show once time has passed have tests of their own
 * (properties-*.test.ts, sequences-*.test.ts, time-rules.test.ts).
 */
const ADDED = DOUBLES.slice(17).filter((d) => !ROUTE_DOUBLES.includes(d) && !SEQUENCE_DOUBLES.includes(d) && !TIME_DOUBLES.includes(d));

describe.concurrent("the conformance suite against the added broken servers", () => {
  it("has at least 30 broken servers, each with a title of its own, spread over the seed's areas", () => {
    expect(DOUBLES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(DOUBLES.map((d) => d.title)).size).toBe(DOUBLES.length);
    expect(new Set(DOUBLES.map((d) => d.area))).toEqual(new Set(["headers", "paging", "idempotency", "events", "auth ladder", "uploads", "library", "support", "oauth", "envelope", "generated inputs", "stateful", "limits"]));
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
