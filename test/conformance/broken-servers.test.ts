// Against deliberately broken servers (the simulator behind a proxy that breaks one
// rule), the suite fails exactly the rule that was broken: no other rule than the
// simulator's own known findings. The doubles of the uploads, library, support, OAuth
// and session areas are in broken-areas.test.ts (a second file, so the two run in
// parallel).
import { describe, expect, it } from "vitest";
import { against, failuresOf } from "./support/against.ts";
import { DOUBLES } from "./support/doubles.ts";

// Whole runs (about 1,100 requests each, the properties over every route included).
describe("the conformance suite against broken servers", { timeout: 60_000 }, () => {
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

  it("GEN-9: fails a server that leaks another account's generation as 403", async () => {
    const report = await against("GEN-9");
    expect(failuresOf(report, "GEN-9")).toMatch(/another account's object answered 403 insufficient_scope, not 404 not_found/);
  });

  it("BATCH-1: fails a server that trims 51 ids instead of refusing them", async () => {
    const report = await against("BATCH-1");
    expect(failuresOf(report, "BATCH-1")).toMatch(/51 ids answered 200: trimmed instead of refused/);
  });

  it("CAT-4: fails a server that ignores If-None-Match on the catalog", async () => {
    const report = await against("CAT-4");
    expect(failuresOf(report, "CAT-4")).toMatch(/answered 200, not 304/);
  });

  it("LIM-2: fails a server that adds the legacy X-RateLimit-* headers", async () => {
    const report = await against("LIM-2");
    expect(failuresOf(report, "LIM-2")).toMatch(/legacy headers sent: x-ratelimit-remaining/);
  });

  it("LIM-3: fails a server whose RateLimit does not count down", async () => {
    const report = await against("LIM-3");
    expect(failuresOf(report, "LIM-3")).toMatch(/remaining did not go down within the default window \(r=250 then r=250\)/);
  });

  it("the doubles run whole here and in broken-areas.test.ts break a different rule each", () => {
    const rules = DOUBLES.slice(0, 17).map((d) => d.rule);
    expect(new Set(rules).size).toBe(rules.length);
  });
});
