// The suite against the simulator: it passes every rule it can check there (apart from
// the simulator's known findings), says why the others do not apply, counts its
// requests, and writes reports CI can read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderJson, renderJunit, renderTable, runConformance, simulatorControl, type Report } from "../../src/conformance/index.ts";
import { seedRules } from "../../src/contract/index.ts";
import type { RunningSimulator } from "../../src/simulator/index.ts";
import { threadOf } from "../../src/simulator/domain/support.ts";
import { controlOf, explain, failing, runFull, SIMULATOR_FINDINGS, simulatorAccessToken, startSim, withSim } from "./support/run.ts";
import { DEMO_KEYS } from "../../src/conformance/run/simulator.ts";

/** What a run may change on the demo account, read from the simulator's state. */
function snapshot(sim: RunningSimulator) {
  const lib = sim.hub.state.library;
  const oauth = sim.hub.state.oauth;
  const account = sim.hub.state.accounts.get("acc_demo")!;
  return {
    generations: sim.hub.state.generations.size,
    balance: account.balance_cc,
    reports: sim.hub.state.reports.size,
    tickets: lib.tickets.size,
    assets: lib.assets.size,
    folders: (lib.folders.get("acc_demo") ?? []).map((f) => `${f.id} ${f.name}`),
    support: threadOf(sim.hub, "acc_demo").length,
    clients: oauth.clients.size,
    grants: oauth.grants.size,
    subscription: { status: account.subscription?.status, cancelled_at: account.subscription?.cancelled_at },
  };
}

describe("the conformance suite against the simulator", () => {
  let sim: RunningSimulator;
  let report: Report;
  let before: ReturnType<typeof snapshot>;

  beforeAll(async () => {
    sim = await startSim();
    before = snapshot(sim);
    report = await runFull(sim);
  });
  afterAll(() => sim?.close());

  it("LIB-3 LIB-5 SUBS-1 SUBS-2: leaves the folders and the subscription as it found them", () => {
    const after = snapshot(sim);
    expect(after.folders).toEqual(before.folders);
    expect(after.subscription).toEqual(before.subscription);
    // Three files of the upload checks, and one the signature's expiry is held on (UPL-1).
    expect(after.assets).toBe(before.assets + 4);
    expect(after.support).toBe(before.support + 2);
  });

  it("fails nothing but the simulator's known findings", () => {
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
  });

  it("PRICE-5: passes the estimate that refuses an unreadable image with 400", () => {
    const row = report.rows.find((r) => r.id === "PRICE-5")!;
    expect(row.verdict, row.failures.map((f) => f.message).join("\n")).toBe("pass");
    expect(row.failures).toEqual([]);
  });

  it("UPL-1 UPL-2 UPL-3 UPL-4 UPL-5 UPL-6 UPL-7 UPL-8 ST-7 LIB-1 LIB-2 LIB-3 LIB-4 LIB-5 LIB-6 LIB-7 PAGE-6 SUP-1 SUP-2 SUP-3 BILL-1 BILL-2 BILL-3: exercises and passes uploads, the library, support and billing", () => {
    for (const id of ["UPL-1", "UPL-2", "UPL-3", "UPL-4", "UPL-5", "UPL-6", "UPL-7", "UPL-8", "ST-7", "LIB-1", "LIB-2", "LIB-3", "LIB-4", "LIB-5", "LIB-6", "LIB-7", "PAGE-6", "SUP-1", "SUP-2", "SUP-3", "BILL-1", "BILL-2", "BILL-3"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, `${id}: ${row.reason ?? ""}`).toBe("pass");
    }
    expect(report.rows.find((r) => r.id === "BILL-1")!.notes.join(" ")).toMatch(/rows of this run's generations: -\d+ cc/);
    expect(report.rows.find((r) => r.id === "LIB-3")!.reason).toMatch(/folder_limit_reached not provoked/);
  });

  it("AUTH-2 AUTH-3 AUTH-6 SUBS-1 SUBS-2 SUBS-3 SUBS-4 W-11 OAUTH-3 OAUTH-4 OAUTH-6 OAUTH-7 OAUTH-8 OAUTH-10 OAUTH-12 OAUTH-13 OAUTH-14 OAUTH-15 OAUTH-16 OAUTH-17 ST-6 EVT-7: exercises and passes the session, the subscription actions and the OAuth server", () => {
    for (const id of ["AUTH-2", "AUTH-3", "AUTH-6", "SUBS-1", "SUBS-2", "SUBS-3", "SUBS-4", "W-11", "OAUTH-1", "OAUTH-2", "OAUTH-3", "OAUTH-4", "OAUTH-6", "OAUTH-7", "OAUTH-8", "OAUTH-10", "OAUTH-11", "OAUTH-12", "OAUTH-13", "OAUTH-14", "OAUTH-15", "OAUTH-16", "OAUTH-17", "ST-6", "EVT-7"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, `${id}: ${row.reason ?? ""}`).toBe("pass");
    }
    expect(report.mode).toMatchObject({ session: "given", oauthAutoConsent: true, oauthToken: false });
  });

  it("OAUTH-9 GEN-6 ST-4 LIM-4: leaves n/a, with the reason, only what a client cannot observe or cause; a late result and a window exceeded, which the control makes possible, are checked", () => {
    const na = report.rows.filter((r) => r.verdict === "n/a" && r.observable).map((r) => r.id).sort();
    expect(na).toEqual(["EP-5", "GAP-1", "GAP-2", "GEN-6", "GEN-8", "LIM-7", "OAUTH-9", "REP-6", "VER-1", "VER-2", "VER-3", "VER-4", "W-12"]);
    expect(report.rows.find((r) => r.id === "ST-4")!.verdict).toBe("pass");
    expect(report.rows.find((r) => r.id === "LIM-4")!.verdict).toBe("pass");
    expect(report.rows.find((r) => r.id === "REP-6")!.reason).toMatch(/no refunded generation/);
  });

  it("AUTH-7 SUB-1 SUB-2 SUB-3 EVT-9 EVT-6 BATCH-1 PAGE-3 W-8 GEN-9 CAT-4 EP-2 ENV-4 LIM-3: exercises and passes the rules the issue names", () => {
    for (const id of ["AUTH-7", "SUB-1", "SUB-2", "SUB-3", "EVT-9", "EVT-6", "BATCH-1", "PAGE-3", "W-8", "GEN-9", "CAT-4", "EP-2", "ENV-4", "LIM-3", "EVT-3", "EVT-12", "EP-3", "LIM-2", "PAGE-2", "PAGE-4"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, `${id}: ${row.reason ?? ""}`).toBe("pass");
    }
  });

  it("SUB-2 LIM-5 LIM-1 LIM-6 PAGE-4 PRICE-1 PRICE-4 BILL-1 EVT-7 EVT-10 EVT-11 EVT-12 W-8 REP-3 REP-4 REP-5 LIB-3 LIB-5 UPL-7 ST-2 ST-3 GEN-9 GEN-10 AUTH-7 ST-6 ACC-2 OAUTH-13: exercises and passes the properties across calls, with no false alarm", () => {
    for (const id of ["SUB-2", "LIM-5", "LIM-1", "LIM-6", "PAGE-4", "PRICE-1", "PRICE-4", "BILL-1", "EVT-7", "EVT-10", "EVT-11", "EVT-12", "W-8", "REP-3", "REP-4", "REP-5", "LIB-3", "LIB-5", "UPL-7", "ST-2", "ST-3", "GEN-9", "GEN-10", "AUTH-7", "ST-6", "ACC-2", "OAUTH-13"]) {
      const row = report.rows.find((r) => r.id === id)!;
      expect(row.verdict, `${id}: ${row.reason ?? ""}`).toBe("pass");
    }
    const notes = (id: string) => report.rows.find((r) => r.id === id)!.notes.join("\n");
    // A charged submit (not one a free quota covered), and every status read came on the stream.
    expect(notes("PRICE-1")).toMatch(/gen_\w+: estimated (\d+) cc, charged [1-9]\d* cc/);
    expect(notes("EVT-11")).toMatch(/gen_\w+: read QUEUED -> PENDING -> RUNNING -> DONE; streamed QUEUED -> PENDING -> RUNNING -> DONE/);
    // The report is a message of the support thread: its replay was counted there, not only read from the reply.
    expect(notes("REP-4")).not.toMatch(/shows no message of the report/);
    // The slots were filled: a refusal for busy slots was met and held.
    expect(notes("LIM-5")).toMatch(/the slots filled after 8 generation\(s\)/);
  });

  it("has one row per seed rule, by the registry's ids and wordings, in its order", () => {
    expect(report.rows.map((r) => r.id)).toEqual(seedRules().map((r) => r.id));
    expect(report.rows.map((r) => r.rule)).toEqual(seedRules().map((r) => r.rule));
  });

  it("says why every rule it did not check is not applicable, and never passes an unobservable rule", () => {
    expect(report.rows.filter((r) => r.verdict === "n/a")).not.toHaveLength(0);
    expect(report.rows.filter((r) => !r.observable)).not.toHaveLength(0);
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

  it("counts its requests per credential, and waits for the main key's window to reset at most once", () => {
    expect(report.requests.total).toBeGreaterThan(100);
    // With the properties across calls the main key sends about one window's worth: one reset.
    const { keyQuota, windowSeconds } = sim.hub.limiter.config;
    expect(report.requests.byCredential.main).toBeLessThan(2 * keyQuota);
    expect(report.requests.waitedSeconds).toBeLessThanOrEqual(windowSeconds);
    expect(Object.values(report.requests.byCredential).reduce((a, b) => a + b, 0)).toBe(report.requests.total);
  });

  it("renders a table with a verdict line, JSON, and JUnit XML with one testcase per rule", () => {
    const table = renderTable(report);
    expect(table).not.toMatch(/^  FAIL /m);
    expect(table).toMatch(/^  PASS  PRICE-5 /m);
    expect(table).toMatch(/site session given, OAuth token not given, OAuth auto-consent declared/);
    const rules = seedRules().length;
    const verdict = table.split("\n").find((line) => line.startsWith("PASSED: "));
    expect(verdict).toMatch(new RegExp(`^PASSED: \\d+ pass, 0 fail, \\d+ n/a of ${rules} rules; \\d+ of ${rules} rules exercised, \\d+% · \\d+ requests \\(main \\d+, `));
    // Every credential counted, in the order the run first used it.
    expect(verdict).toMatch(/[(,] storage \d+[,)]/);
    expect(verdict).toMatch(/[(,] session \d+[,)]/);
    expect(JSON.parse(renderJson(report)).rows).toHaveLength(rules);
    const xml = renderJunit(report);
    expect(xml.match(/<testcase /g)).toHaveLength(rules);
    expect(xml).not.toContain("<failure");
    expect(xml).toMatch(/<testcase classname="conformance\.Endpoints" name="PRICE-5: [^"]*" time="0">\n    <\/testcase>/);
    expect(xml).toMatch(/<skipped message="not observable/);
  });
});

describe("the conformance suite without writes, spending or extra keys", () => {
  let sim: RunningSimulator;
  let report: Report;
  let before: ReturnType<typeof snapshot>;

  beforeAll(async () => {
    sim = await startSim();
    before = snapshot(sim);
    report = await runFull(sim, sim.url, { allowWrites: false, allowSpend: false, otherApiKey: undefined, keys: {} });
  });
  afterAll(() => sim?.close());

  it("creates nothing, uploads nothing, registers no client and changes no balance or subscription", () => {
    expect(snapshot(sim)).toEqual(before);
    expect(sim.hub.state.accounts.get("acc_demo")!.balance_cc).toBe(500_000);
    expect(sim.hub.state.reports.size).toBe(0);
  });

  it("UPL-7 LIB-3 SUP-3 OAUTH-6 SUBS-1 OAUTH-12: says the uploads, library writes, sending, registration, subscription actions and the code flow need --allow-writes", () => {
    const reason = (id: string) => report.rows.find((r) => r.id === id)!.reason ?? "";
    for (const id of ["UPL-7", "LIB-3", "SUP-3", "OAUTH-6", "SUBS-1", "OAUTH-12", "ST-6"]) expect(reason(id), id).toMatch(/needs --allow-writes/);
    expect(report.rows.find((r) => r.id === "AUTH-3")!.verdict).toBe("pass");
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
      // The simulator's own control, counting what it was asked to move.
      control: {
        ...simulatorControl(sim.url),
        advanceClock: async (seconds) => {
          advanced += seconds;
          return (await controlOf(sim).advance(seconds)).now_ms;
        },
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
    await withSim({ rateLimits: { keyQuota: 30, accountQuota: 300 } }, async (tight) => {
      const stopped = await runFull(tight, tight.url, { allowWrites: false, allowSpend: false, maxWaitSeconds: 0 });
      expect(stopped.stopped).toMatch(/spare the caller's quota/);
      expect(stopped.requests.byCredential.main).toBeLessThan(30);
      expect(stopped.rows.filter((r) => r.reason?.includes("spare the caller's quota")).length).toBeGreaterThan(0);
    });
  });
});

describe("the conformance suite with a key the server refuses", () => {
  it("AUTH-1: fails and stops, naming the refusal, instead of reporting every rule as failed", async () => {
    await withSim({}, async (sim) => {
      const report = await runFull(sim, sim.url, { apiKey: "ghk_demo_expired" });
      expect(failing(report)).toEqual(["AUTH-1"]);
      expect(report.stopped).toMatch(/GET \/v1\/whoami answered 401 api_key_expired/);
      expect(report.rows.find((r) => r.id === "PAGE-3")!.reason).toMatch(/the API key is not usable/);
    });
  });
});

describe("the conformance suite without a session or OAuth inputs", () => {
  it("AUTH-2 AUTH-3 SUBS-1 OAUTH-4 OAUTH-12 ST-6 EVT-7: says which input each rule needs, and passes what it checks without them", async () => {
    await withSim({}, async (sim) => {
      const only = ["AUTH-2", "AUTH-3", "SUBS", "OAUTH", "ST-6", "EVT-7"];
      // Without the simulator's control too: a key revoked during the run would end a stream (EVT-7) without OAuth.
      const report = await runFull(sim, sim.url, { session: undefined, oauth: undefined, control: undefined, only });
      expect(failing(report), explain(report)).toEqual([]);
      const row = (id: string) => report.rows.find((r) => r.id === id)!;
      expect(row("AUTH-3")).toMatchObject({ verdict: "pass", reason: expect.stringMatching(/no site session given \(--session-cookie with --origin\)/) });
      expect(row("SUBS-1")).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/no site session given/) });
      expect(row("AUTH-2")).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/no OAuth access token given \(--oauth-token\)/) });
      for (const id of ["OAUTH-12", "OAUTH-14", "ST-6", "EVT-7"]) expect(row(id)).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/needs a user's consent in a browser: not run \(--oauth-auto-consent/) });
      expect(row("OAUTH-4")).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/no client ID metadata document given \(--oauth-client-document/) });
      for (const id of ["OAUTH-3", "OAUTH-6", "OAUTH-7", "OAUTH-16", "OAUTH-17"]) expect(row(id).verdict, id).toBe("pass");
      expect(renderTable(report)).toMatch(/site session not given, OAuth token not given, OAuth auto-consent not declared/);
    });
  });

  it("AUTH-2 AUTH-6 W-11: checks a given OAuth access token (scopes held, one refused with its name, session-only routes refused)", async () => {
    await withSim({}, async (sim) => {
      const oauthToken = await simulatorAccessToken(sim, "me:read models:read billing:read");
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", keys: DEMO_KEYS, oauthToken, allowWrites: true, only: ["AUTH-2", "AUTH-6", "W-11"] });
      expect(failing(report), explain(report)).toEqual([]);
      for (const id of ["AUTH-2", "AUTH-6", "W-11"]) expect(report.rows.find((r) => r.id === id)!.verdict, id).toBe("pass");
      expect(report.mode.oauthToken).toBe(true);
      expect(report.requests.byCredential["oauth token"]).toBeGreaterThan(0);
    });
  });

  it("BILL-2: accepts the subscription read wrapped in `subscription`", async () => {
    await withSim({ subscriptionForm: "wrapped" }, async (sim) => {
      const report = await runFull(sim, sim.url, { only: ["BILL", "W-7"] });
      expect(failing(report), explain(report)).toEqual([]);
      const row = report.rows.find((r) => r.id === "BILL-2")!;
      expect(row.verdict).toBe("pass");
      expect(row.notes.join(" ")).toMatch(/main: wrapped record, other: wrapped record, free: wrapped null/);
    });
  });
});
