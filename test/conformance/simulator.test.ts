// The suite against the simulator: it passes every rule it can check there (apart from
// the simulator's known findings), says why the others do not apply, counts its
// requests, and writes reports CI can read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderJson, renderJunit, renderTable, type Report } from "../../src/conformance/index.ts";
import { seedRules } from "../../src/contract/index.ts";
import type { RunningSimulator } from "../../src/simulator/index.ts";
import { explain, failing, runFull, SIMULATOR_FINDINGS, startSim } from "./support/run.ts";

describe("the conformance suite against the simulator", () => {
  let sim: RunningSimulator;
  let report: Report;

  beforeAll(async () => {
    sim = await startSim();
    report = await runFull(sim);
  });
  afterAll(() => sim?.close());

  it("fails nothing but the simulator's known findings", () => {
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
  });

  it("PRICE-5: fails the simulator's estimate that prices an unreadable image", () => {
    const row = report.rows.find((r) => r.id === "PRICE-5")!;
    expect(row.verdict).toBe("fail");
    expect(row.failures[0]?.message).toMatch(/answered 200 with price_cc/);
    expect(row.failures[0]?.requestId).toMatch(/^conformance-/);
  });

  it("AUTH-7 SUB-1 SUB-2 SUB-3 EVT-9 EVT-6 BATCH-1 PAGE-3 W-8 GEN-9 CAT-4 EP-2 ENV-4 LIM-3: exercises and passes the rules the issue names", () => {
    for (const id of ["AUTH-7", "SUB-1", "SUB-2", "SUB-3", "EVT-9", "EVT-6", "BATCH-1", "PAGE-3", "W-8", "GEN-9", "CAT-4", "EP-2", "ENV-4", "LIM-3", "EVT-3", "EVT-12", "EP-3", "LIM-2", "PAGE-2", "PAGE-4"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, `${id}: ${row.reason ?? ""}`).toBe("pass");
    }
  });

  it("has one row per seed rule, by the registry's ids and wordings, in its order", () => {
    expect(report.rows.map((r) => r.id)).toEqual(seedRules().map((r) => r.id));
    expect(report.rows.map((r) => r.rule)).toEqual(seedRules().map((r) => r.rule));
  });

  it("says why every rule it did not check is not applicable, and never passes an unobservable rule", () => {
    for (const row of report.rows.filter((r) => r.verdict === "n/a")) expect(row.reason, row.id).toBeTruthy();
    for (const row of report.rows.filter((r) => !r.observable)) {
      expect(row.verdict, row.id).toBe("n/a");
      expect(row.reason).toMatch(/not observable/);
    }
  });

  it("AUTH-7: names the rungs it exercised and the ones it could not reach", () => {
    const row = report.rows.find((r) => r.id === "AUTH-7")!;
    expect(row.notes.join(" ")).toMatch(/unauthorized.*invalid_api_key.*api_key_expired.*api_key_revoked/);
    expect(row.reason).toMatch(/api_disabled/);
  });

  it("EVT-8: sees the heartbeat of the stream", () => {
    expect(report.rows.find((r) => r.id === "EVT-8")!.verdict).toBe("pass");
  });

  it("counts its requests per credential and stays inside the simulator's window", () => {
    expect(report.requests.total).toBeGreaterThan(100);
    expect(report.requests.byCredential.main).toBeLessThan(sim.hub.limiter.config.keyQuota);
    expect(Object.values(report.requests.byCredential).reduce((a, b) => a + b, 0)).toBe(report.requests.total);
  });

  it("renders a table with a verdict line, JSON, and JUnit XML with one testcase per rule", () => {
    const table = renderTable(report);
    expect(table).toMatch(/^  FAIL  PRICE-5 /m);
    expect(table).toMatch(/request id conformance-/);
    expect(table).toMatch(/^FAILED: \d+ pass, 1 fail, \d+ n\/a of 160 seed rules · \d+ requests/m);
    expect(JSON.parse(renderJson(report)).rows).toHaveLength(160);
    const xml = renderJunit(report);
    expect(xml.match(/<testcase /g)).toHaveLength(160);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('name="PRICE-5: ');
    expect(xml).toMatch(/<skipped message="not observable/);
  });
});

describe("the conformance suite without writes, spending or extra keys", () => {
  let sim: RunningSimulator;
  let report: Report;
  let before: number;

  beforeAll(async () => {
    sim = await startSim();
    before = sim.hub.state.generations.size;
    report = await runFull(sim, sim.url, { allowWrites: false, allowSpend: false, otherApiKey: undefined, keys: {} });
  });
  afterAll(() => sim?.close());

  it("creates nothing and changes no balance", () => {
    expect(sim.hub.state.generations.size).toBe(before);
    expect(sim.hub.state.accounts.get("acc_demo")!.balance_cc).toBe(500_000);
    expect(sim.hub.state.reports.size).toBe(0);
  });

  it("SUB-1 REP-1 W-11 W-8: says which rules need --allow-spend, --allow-writes or a second account", () => {
    const reason = (id: string) => report.rows.find((r) => r.id === id)!.reason ?? "";
    expect(reason("SUB-1")).toMatch(/needs --allow-spend/);
    expect(reason("REP-1")).toMatch(/needs --allow-writes/);
    expect(reason("W-11")).toMatch(/needs --allow-writes/);
    expect(reason("W-8")).toMatch(/--other-api-key/);
    expect(reason("AUTH-6")).toMatch(/--key read-only/);
  });

  it("passes what it can check read-only", () => {
    expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
    for (const id of ["PAGE-3", "BATCH-1", "CAT-4", "EVT-6", "EVT-12", "AUTH-7"]) expect(report.rows.find((r) => r.id === id)!.verdict, id).toBe("pass");
  });
});

describe("the conformance suite and the caller's quota", () => {
  let sim: RunningSimulator;
  let report: Report;
  let advanced = 0;

  beforeAll(async () => {
    // A key window of 40 requests: the suite has to wait for resets, never run dry.
    sim = await startSim({ rateLimits: { keyQuota: 40, accountQuota: 400 } });
    report = await runFull(sim, sim.url, {
      allowWrites: false,
      allowSpend: false,
      maxWaitSeconds: 1_000,
      advance: async (seconds) => {
        advanced += seconds;
        sim.hub.clock.advance(Math.round(seconds * 1000));
      },
    });
  });
  afterAll(() => sim?.close());

  it("LIM-3 EP-3: reads RateLimit and waits for the window instead of being refused", () => {
    expect(report.requests.waitedSeconds).toBeGreaterThan(0);
    expect(advanced).toBeGreaterThanOrEqual(report.requests.waitedSeconds);
    expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
  });

  it("stops with a reason rather than exhaust the quota when waiting is not allowed", async () => {
    const tight = await startSim({ rateLimits: { keyQuota: 30, accountQuota: 300 } });
    try {
      const stopped = await runFull(tight, tight.url, { allowWrites: false, allowSpend: false, maxWaitSeconds: 0 });
      expect(stopped.stopped).toMatch(/spare the caller's quota/);
      expect(stopped.requests.byCredential.main).toBeLessThan(30);
      expect(stopped.rows.filter((r) => r.reason?.includes("spare the caller's quota")).length).toBeGreaterThan(0);
    } finally {
      await tight.close();
    }
  });
});

describe("the conformance suite with a key the server refuses", () => {
  it("AUTH-1: fails and stops, naming the refusal, instead of reporting every rule as failed", async () => {
    const sim = await startSim();
    try {
      const report = await runFull(sim, sim.url, { apiKey: "ghk_demo_expired" });
      expect(failing(report)).toEqual(["AUTH-1"]);
      expect(report.stopped).toMatch(/GET \/v1\/whoami answered 401 api_key_expired/);
      expect(report.rows.find((r) => r.id === "PAGE-3")!.reason).toMatch(/the API key is not usable/);
    } finally {
      await sim.close();
    }
  });
});
