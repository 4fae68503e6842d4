// What a report tells a backend engineer beyond the verdicts: how much of the seed the
// run covered (and a floor for CI), and which statuses of which operation it saw.
import { describe, expect, it } from "vitest";
import { exitCode, renderJunit, renderTable, runConformance } from "../../src/conformance/index.ts";
import { statusCoverage } from "../../src/conformance/coverage.ts";
import { operationById, seedRules } from "../../src/contract/index.ts";
import { withSim } from "./support/run.ts";

describe("coverage of the seed rules", () => {
  it("PAGE-3: says how many rules were exercised and fails a run under --min-coverage", async () => {
    await withSim({}, async (sim) => {
      const base = { baseUrl: sim.url, apiKey: "ghk_demo_full", only: ["PAGE-3"] };
      const under = await runConformance({ ...base, minCoverage: 90 });
      const total = seedRules().length;
      const exercised = under.rows.filter((r) => r.verdict !== "n/a").length;
      expect(under.summary.fail).toBe(0);
      expect(under.coverage.rules).toMatchObject({ exercised, total, floor: 90, met: false });
      expect(under.coverage.rules.percent).toBeCloseTo((exercised / total) * 100, 5);
      expect(exitCode(under)).toBe(1);
      const table = renderTable(under);
      expect(table).toContain(`Coverage under its floor: coverage ${((exercised / total) * 100).toFixed(1)}% (${exercised} of ${total} rules exercised) is under --min-coverage 90%`);
      expect(table).toMatch(new RegExp(`^FAILED: ${under.summary.pass} pass, 0 fail, \\d+ n/a of ${total} seed rules; ${exercised} of ${total} rules exercised, ${Math.round((exercised / total) * 100)}% \\(floor 90%\\)`, "m"));
      const junit = renderJunit(under);
      expect(junit).toMatch(/<testcase classname="conformance.coverage" name="at least 90% of the seed rules exercised" time="0">\s*<failure message="coverage [\d.]+% \(\d+ of \d+ rules exercised\) is under --min-coverage 90%"/);
      expect(junit).toContain(`<property name="rules_exercised" value="${exercised}"/>`);

      const over = await runConformance({ ...base, minCoverage: 1 });
      expect(over.coverage.rules.met).toBe(true);
      expect(exitCode(over)).toBe(0);
      expect(renderTable(over)).toMatch(/^PASSED: .* rules exercised, \d+% \(floor 1%\)/m);
      expect(renderJunit(over)).not.toContain("<failure");
    });
  });

  it("refuses a floor outside 0..100", async () => {
    await expect(runConformance({ baseUrl: "http://127.0.0.1:9", apiKey: "k", minCoverage: 101 })).rejects.toThrow(/minCoverage is a percentage of the seed rules, 0 to 100; got 101/);
  });
});

describe("statuses by operation", () => {
  it("counts each answer under the status key the contract declares, and lists the undeclared ones", () => {
    const seen = new Map([
      ["readWhoami", new Map([[200, 2], [404, 1]])],
      ["createLibraryFolder", new Map([[201, 3], [409, 1]])],
    ]);
    const s = statusCoverage(seen);
    const whoami = s.operations.find((o) => o.operationId === "readWhoami")!;
    expect(whoami).toMatchObject({ method: "GET", path: "/v1/whoami", undeclared: { "404": 1 } });
    expect(whoami.declared["200"]).toBe(2);
    expect(whoami.declared["401"]).toBe(0);
    const folder = s.operations.find((o) => o.operationId === "createLibraryFolder")!;
    expect(folder.declared["2XX"]).toBe(3);
    expect(folder.declared["409"]).toBe(1);
    expect(s.observed).toBe(3);
    const declared = s.operations.reduce((n, o) => n + Object.keys(o.declared).length, 0);
    expect(s.declared).toBe(declared);
    expect(Object.keys(folder.declared).sort()).toEqual(Object.keys(operationById("createLibraryFolder").op.responses as object).sort());
  });

  it("PAGE-3: a run's table counts every answer it checked against the contract", async () => {
    await withSim({}, async (sim) => {
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", only: ["PAGE-3"] });
      const counted = report.coverage.statuses.operations.reduce((n, o) => n + Object.values(o.declared).reduce((a, b) => a + b, 0) + Object.values(o.undeclared).reduce((a, b) => a + b, 0), 0);
      expect(counted).toBe(report.requests.total);
      const list = report.coverage.statuses.operations.find((o) => o.operationId === "listGenerations")!;
      expect(list.declared["400"]).toBeGreaterThanOrEqual(2); // limit=0 and limit=101
      expect(renderTable(report, { coverage: true })).toMatch(/^ {2}listGenerations +GET \/v1\/generations +200:\d+ 400:\d+ 401:- /m);
      expect(renderTable(report)).toMatch(/^Statuses: \d+ of \d+ declared \(operation, status\) pairs seen \(--coverage for the table\)$/m);
    });
  });
});
