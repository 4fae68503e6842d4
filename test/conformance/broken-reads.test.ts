// Against deliberately broken servers, continued from broken-servers.test.ts: reads and
// rate windows. Each double is the simulator behind a proxy that breaks one rule, and the
// whole suite fails exactly the rule that was broken. Each run has a simulator and proxy
// of its own, so the runs go concurrently, overlapping their waits.
import { describe, expect, it } from "vitest";
import { against, failuresOf } from "./support/against.ts";

// Whole runs (about 1,100 requests each, the properties over every route included).
describe.concurrent("the conformance suite against broken servers: reads and rate windows", { timeout: 120_000 }, () => {
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
});
