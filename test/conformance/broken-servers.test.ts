// Against deliberately broken servers (the simulator behind a proxy that breaks one
// rule), the suite fails exactly the rule that was broken: no other rule than the
// simulator's own known findings. The doubles of reads and rate windows are in
// broken-reads.test.ts, those of the uploads, library, support, OAuth and session areas in
// broken-areas.test.ts (files of their own, so that they run in parallel and each stays
// under half a minute). Each run has a simulator and proxy of its own: the runs of a file
// go concurrently, overlapping their waits.
import { describe, expect, it } from "vitest";
import { against, failuresOf } from "./support/against.ts";
import { DOUBLES } from "./support/doubles.ts";

// Whole runs (about 1,100 requests each, the properties over every route included).
describe.concurrent("the conformance suite against broken servers", { timeout: 120_000 }, () => {
  it("SUB-1: fails a server that answers 201 to a new submit", async () => {
    const report = await against("SUB-1");
    expect(failuresOf(report, "SUB-1")).toMatch(/status 201 is not declared/);
    expect(report.rows.find((r) => r.id === "SUB-1")!.failures[0]!.requestId).toMatch(/^conformance-/);
  });

  it("PAGE-3: fails a server that clamps limit", async () => {
    const report = await against("PAGE-3");
    expect(failuresOf(report, "PAGE-3")).toMatch(/limit=101 answered 200 .* clamped instead of refused/);
    expect(failuresOf(report, "PAGE-3")).toMatch(/limit=0 answered 200/);
  });

  it("ENV-4: fails a server that drops request_id from the envelope", async () => {
    const report = await against("ENV-4");
    expect(failuresOf(report, "ENV-4")).toMatch(/required property 'request_id'/);
  });

  it("EP-2: fails a server that answers its own X-Request-Id instead of the caller's", async () => {
    const report = await against("EP-2");
    expect(failuresOf(report, "EP-2")).toMatch(/does not repeat the one sent/);
  });

  it("EVT-9: fails a server that repeats an event after resume", async () => {
    const report = await against("EVT-9");
    expect(failuresOf(report, "EVT-9")).toMatch(/after resuming, 1 frame\(s\) came again/);
  });

  it("the doubles run whole here, in broken-reads.test.ts and in broken-areas.test.ts break a different rule each", () => {
    const rules = DOUBLES.slice(0, 17).map((d) => d.rule);
    expect(new Set(rules).size).toBe(rules.length);
  });
});
