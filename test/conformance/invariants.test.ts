// The invariants (src/conformance/judge/invariants/): named checks over the whole trace of
// a run. Each is held to a broken server whose every answer is right on its own
// (support/doubles-invariants.ts): the run fails the invariant's rule, with the
// invariant's own words. That the simulator passes them all, in the default run and with
// generated inputs, is the clean runs' test (default-quotas, generated, ...), which fail
// on any finding.
import { describe, expect, it } from "vitest";
import { seedRule } from "../../src/contract/index.ts";
import { INVARIANTS } from "../../src/conformance/judge/invariants/index.ts";
import { INVARIANT_DOUBLES } from "./support/doubles-invariants.ts";
import { startProxy } from "./support/proxy.ts";
import { explain, failing, runFull, startSim } from "./support/run.ts";
import { brokenWording, failuresOf } from "./support/against.ts";

/** What each invariant says when it finds its double's bug, by the double's rule. */
const SAYS: Record<string, RegExp> = {
  "EP-2": /the request id \S+ the server generated for .* it had generated before, for .*: a generated id must be fresh/,
  "ST-5": /generation \S+ was DONE in .*, then (QUEUED|PENDING|RUNNING|MODERATION_PENDING|FAILED) in GET \/v1\/generations\?.*: DONE is final/,
  "EVT-9": /the event stream \/v1\/events delivered the frame \S+ \(generation\.status_changed\) again: no repeat/,
};
/** Doubles whose bug the run's first checks meet: judged in a run narrowed to the rule (quicker). */
const NARROW = new Set(["EP-2", "EVT-9"]);

describe("the invariants over the whole trace", () => {
  it("each has a name of its own and seed rules that exist; each of the rules has a broken server", () => {
    expect(INVARIANTS.length).toBeGreaterThan(0);
    expect(new Set(INVARIANTS.map((i) => i.name)).size).toBe(INVARIANTS.length);
    const rules = INVARIANTS.flatMap((i) => i.rules);
    for (const rule of rules) expect(seedRule(rule).observable, rule).toBe(true);
    expect(INVARIANT_DOUBLES.length).toBeGreaterThan(0);
    for (const d of INVARIANT_DOUBLES) {
      expect(rules, d.title).toContain(d.rule);
      expect(SAYS[d.rule], d.title).toBeDefined();
    }
    // Every invariant is held to a double.
    for (const invariant of INVARIANTS) expect(INVARIANT_DOUBLES.some((d) => invariant.rules.includes(d.rule)), invariant.name).toBe(true);
  });

  for (const d of INVARIANT_DOUBLES) {
    it(`${d.rule}: fails a server that ${d.title}`, { timeout: 60_000 }, async () => {
      const sim = await startSim();
      const proxy = await startProxy(sim.url, d.make(sim));
      try {
        const report = await runFull(sim, proxy.url, NARROW.has(d.rule) ? { quick: true, only: [d.rule] } : {});
        expect(report.errors, explain(report)).toEqual([]);
        expect(failing(report), explain(report)).toContain(d.rule);
        const said = failuresOf(report, d.rule).split("\n");
        expect(said.some((m) => SAYS[d.rule]!.test(m)), said.join("\n")).toBe(true);
        expect(brokenWording(report)).toEqual([]);
      } finally {
        await proxy.close();
        await sim.close();
      }
    });
  }
});
