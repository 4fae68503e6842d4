// The rules that take time (issue 24, item 4): on a clock the suite moves (the simulator's
// control: `advanceClock`), they are checked in no real time; without one, a rule whose time
// is more than is left of --max-wait is n/a with the reason, before anything is made for it.
// Each has a broken server that only its check finds (doubles-time.ts).
import { describe, expect, it } from "vitest";
import { runConformance, simulatorControl } from "../../src/conformance/index.ts";
import { detectSimulatorControl } from "../../src/conformance/target/control.ts";
import { failsEach } from "./support/against.ts";
import { TIME_DOUBLES } from "./support/doubles-time.ts";
import { startProxy } from "./support/proxy.ts";
import { controlOf, explain, failing, runFull, withSim } from "./support/run.ts";

/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "answers reset cursor_unknown, not cursor_expired, for a cursor older than the 7 days of history": /^a cursor the server issued, whose events are older than the 7 days of history kept, got reset "cursor_unknown"; expected cursor_expired/,
  "still accepts an OAuth access token after its expires_in": /^GET \/v1\/whoami with an access token 3601 s after its token reply \(expires_in 3600\): an expired token: expected 401 invalid_token, got 200$/,
  "says in RateLimit that the whole window is left before its reset, however much time has passed": /^the default window's reset did not come closer: t=60, then t=60 after the suite let [\d.]+ s pass on the server, within the same window$/,
  "forgets an uploaded file once the ticket it was written through has expired": /^the file written through a ticket is gone once the ticket's signature expired \(\S+\): GET \/v1\/library\/assets\/\S+\/content answered 404 not_found; expires_at is the signature's expiry, not the file's$/,
};

const DAY_MS = 86_400_000;

describe("the rules that take time", () => {
  it("EVT-12: on a clock the suite moves, a cursor older than the 7 days of history answers reset cursor_expired; the clock moved days in no real time", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      const before = (await controlOf(sim).clock()).now_ms;
      const started = Date.now();
      const report = await runFull(sim, sim.url, { quick: true, only: ["EVT-12"] });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([]);
      const row = report.rows.find((r) => r.id === "EVT-12")!;
      expect(row.verdict, row.reason).toBe("pass");
      expect((await controlOf(sim).clock()).now_ms - before).toBeGreaterThan(7 * DAY_MS);
      expect(Date.now() - started).toBeLessThan(30_000);
      // Moved, not waited: --max-wait is not spent on it.
      expect(report.requests.waitedSeconds).toBe(0);
    });
  });

  it("EVT-12: without a clock to move, the 7 days are more than --max-wait: n/a with the reason, and nothing is submitted for it", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      const { advanceClock: _moves, ...control } = simulatorControl(sim.url);
      const generations = sim.hub.state.generations.size;
      const report = await runFull(sim, sim.url, { quick: true, only: ["EVT-12"], control, maxWaitSeconds: 5 });
      expect(report.errors, explain(report)).toEqual([]);
      const row = report.rows.find((r) => r.id === "EVT-12")!;
      // Other checks of EVT-12 (the stream limit, what a stream costs) still pass it; the retention's reason is noted.
      expect(row.verdict).not.toBe("fail");
      expect(row.reason).toMatch(/the 7 days of event history takes 608400 s, more than is left of --max-wait \(\d+ s of 5 s\), and the server's clock cannot be moved/);
      // Asked before the check made anything: no generation was submitted for it.
      expect(sim.hub.state.generations.size).toBe(generations);
    });
  });

  it("UPL-1: without a clock to move, a signature that expires within --max-wait is waited for in real time, and the file outlives it", { timeout: 60_000 }, async () => {
    // The simulator's clock at real speed, its signatures valid 2 s, its clock not the suite's to move.
    await withSim({ clockSpeed: 1, uploadSignatureSeconds: 2 }, async (sim) => {
      const { advanceClock: _moves, ...control } = simulatorControl(sim.url);
      const report = await runFull(sim, sim.url, { quick: true, only: ["UPL-1"], control, maxWaitSeconds: 30 });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([]);
      const row = report.rows.find((r) => r.id === "UPL-1")!;
      expect(row.verdict).toBe("pass");
      expect(row.reason).toBeUndefined();
      expect(report.requests.waitedSeconds).toBeGreaterThan(0);
      expect(report.requests.waitedSeconds).toBeLessThanOrEqual(30);
    });
  });

  it("UPL-1: without a clock to move, a signature longer than --max-wait leaves the rule n/a with the reason", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      const { advanceClock: _moves, ...control } = simulatorControl(sim.url);
      const report = await runFull(sim, sim.url, { quick: true, only: ["UPL-1"], control, maxWaitSeconds: 60 });
      const row = report.rows.find((r) => r.id === "UPL-1")!;
      expect(row.reason).toMatch(/the upload signature's \d+ s \(a ticket's expires_at\) takes \d+ s, more than is left of --max-wait \(\d+ s of 60 s\), and the server's clock cannot be moved/);
      expect(report.requests.waitedSeconds).toBe(0);
    });
  });

  it("EVT-12: against a sandbox of a shared simulator, the suite finds the sandbox's control and moves its clock alone", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      const shared = controlOf(sim);
      const sandbox = await shared.createSandbox();
      const control = await detectSimulatorControl(sandbox.base_url, sandbox.api_key);
      expect(control?.advanceClock).toBeDefined();
      const [hubBefore, sandboxBefore] = [(await shared.clock()).now_ms, (await sandbox.control.clock()).now_ms];
      const report = await runConformance({ baseUrl: sandbox.base_url, apiKey: sandbox.api_key, allowSpend: true, quick: true, only: ["EVT-12"], control });
      expect(report.errors, explain(report)).toEqual([]);
      const row = report.rows.find((r) => r.id === "EVT-12")!;
      expect(row.verdict, row.reason).toBe("pass");
      expect(row.reason).toBeUndefined();
      expect((await sandbox.control.clock()).now_ms - sandboxBefore).toBeGreaterThan(7 * DAY_MS);
      // The simulator's default hub, which other clients may be using, kept its time.
      expect((await shared.clock()).now_ms).toBe(hubBefore);
    });
  });

  it("EVT-8: a heartbeat not yet seen is waited for in real time (no clock move hastens it) only within --max-wait, else n/a with the reason", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      // The stream's comments taken out: the heartbeat would have to be waited for.
      const proxy = await startProxy(sim.url, { stream: (_req, chunk) => chunk.replace(/^:[^\n]*\n\n/gm, "") });
      try {
        const started = Date.now();
        const report = await runFull(sim, proxy.url, { only: ["EVT-8"], maxWaitSeconds: 2 });
        expect(report.errors, explain(report)).toEqual([]);
        const row = report.rows.find((r) => r.id === "EVT-8")!;
        expect(row.verdict).toBe("n/a");
        expect(row.reason).toMatch(/^the heartbeat's 15 s \(\+3 s\) since the stream opened takes 1\d s, more than is left of --max-wait \(2 s of 2 s\), and it runs on real time, which no clock move hastens$/);
        expect(Date.now() - started).toBeLessThan(15_000);
      } finally {
        await proxy.close();
      }
    });
  });

  it("OAUTH-6: a run against a simulator whose clock an earlier run moved days ahead judges its times by the server's clock, not this machine's", { timeout: 60_000 }, async () => {
    await withSim({}, async (sim) => {
      await controlOf(sim).advance(8 * 86_400);
      const report = await runFull(sim, sim.url, { quick: true, only: ["OAUTH-6"] });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([]);
      expect(report.rows.find((r) => r.id === "OAUTH-6")!.verdict).toBe("pass");
    });
  });

  failsEach(TIME_DOUBLES, SAYS);
});
