// The second opinion: the same run through `prism proxy` reports every violation Prism
// finds in the answers (none for the simulator; the undeclared 201 of a broken server).
// A whole default run through Prism, which validates every answer, and one narrowed to
// the broken rule (the broken server's whole run, failing that rule alone, is in
// broken-servers.test.ts); one Prism is shared.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exitCode, renderJunit, renderTable, startPrism, type RunningPrism } from "../../src/conformance/index.ts";
import type { RunningSimulator } from "../../src/simulator/index.ts";
import { DOUBLES } from "./support/doubles.ts";
import { startProxy, type RunningProxy } from "./support/proxy.ts";
import { explain, failing, runFull, SIMULATOR_FINDINGS, startSim } from "./support/run.ts";

describe("the conformance suite through prism proxy", () => {
  let sim: RunningSimulator;
  let double: RunningProxy;
  let prism: RunningPrism;

  beforeAll(async () => {
    sim = await startSim();
    double = await startProxy(sim.url);
    prism = await startPrism("proxy", double.url);
  }, 90_000);
  afterAll(async () => {
    await prism?.close();
    await double?.close();
    await sim?.close();
  });

  // Whole runs through Prism (about 1,200 requests each, every one validated twice).
  it("reports Prism's findings beside its own: no response violation from the simulator", { timeout: 120_000 }, async () => {
    sim.hub.reset();
    double.use({});
    const report = await runFull(sim, double.url, { viaUrl: prism.url }, { prism: true });
    expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
    expect(report.prism).toBeDefined();
    expect(report.prism!.responseViolations, JSON.stringify(report.prism!.findings.filter((f) => f.location[0] === "response"))).toBe(0);
    // The suite's invalid requests show up as request violations, marked as on purpose.
    const requests = report.prism!.findings.filter((f) => f.location[0] === "request");
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((f) => !f.deliberate), JSON.stringify(requests.filter((f) => !f.deliberate))).toEqual([]);
    expect(renderTable(report)).toMatch(/Prism proxy \(second opinion\): 0 response violation/);
    // The newer areas went through Prism too (binary bodies, session-cookie requests and
    // authorization requests go direct: Prism re-encodes binary bodies, refuses the
    // contract's placeholder cookie name and follows redirects itself).
    for (const id of ["UPL-6", "UPL-8", "LIB-5", "SUP-3", "BILL-1", "OAUTH-6", "OAUTH-14", "OAUTH-17", "SUBS-2"]) expect(report.rows.find((r) => r.id === id)!.verdict, id).toBe("pass");
    const proxied = new Set(report.prism!.findings.map((f) => f.request.split(" ")[1]!.split("?")[0]));
    expect(proxied.has("/oauth/register")).toBe(true);
  });

  it("SUB-1: reports the response violation Prism finds in a server that answers 201 to a submit", { timeout: 120_000 }, async () => {
    sim.hub.reset();
    double.use(DOUBLES.find((d) => d.rule === "SUB-1")!.make(sim));
    const report = await runFull(sim, double.url, { viaUrl: prism.url, only: ["SUB-1"] }, { prism: true });
    expect(failing(report), explain(report)).toEqual(["SUB-1"]);
    const found = report.prism!.findings.filter((f) => f.location[0] === "response");
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.request.startsWith("POST /v1/generations -> 201")), JSON.stringify(found)).toBe(true);
    expect(exitCode(report)).toBe(1);
    expect(renderJunit(report)).toMatch(/<testsuite name="prism proxy" tests="1" failures="1"/);
  });
});
