// Against servers broken in the uploads, the library, support, OAuth and the session
// cookie (the simulator behind a proxy that breaks one behaviour), the suite fails
// exactly the rule that was broken (with the rule of the seed that states the same
// thing, where there is one), and the request at fault is cited. Each of its seven runs is
// the whole default run, in process, because these bugs show only across the checks of
// several areas; each has a simulator and proxy of its own, so they run concurrently and
// overlap their waits (36 s one after another, 28 s so, loaded).
import { describe, expect, it } from "vitest";
import { seedRule } from "../../src/contract/index.ts";
import { against, failuresOf } from "./support/against.ts";
import { DOUBLES } from "./support/doubles.ts";

function requestsOf(report: Awaited<ReturnType<typeof against>>, rule: string): string[] {
  return report.rows.find((r) => r.id === rule)!.failures.map((f) => f.request ?? "");
}

// Whole runs (about 1,100 requests each, the properties over every route included).
describe.concurrent("the conformance suite against servers broken in the newer areas", { timeout: 120_000 }, () => {
  it("UPL-7 ST-7: fails a storage that accepts a second PUT to a signed url", async () => {
    const report = await against("UPL-7");
    expect(failuresOf(report, "UPL-7")).toMatch(/a second PUT to the same url answered 200, not 412/);
    expect(failuresOf(report, "ST-7")).toMatch(/a direct PUT to a ticket already completed through the proxy answered 200, not 412/);
    expect(requestsOf(report, "UPL-7").every((r) => r.startsWith("PUT /storage/"))).toBe(true);
  });

  it("UPL-8: fails a proxy path that answers a second completion with 200", async () => {
    const report = await against("UPL-8");
    expect(failuresOf(report, "UPL-8")).toMatch(/a second completion of the same ticket through the proxy: expected 409 duplicate_key_conflict, got 200/);
    expect(report.rows.find((r) => r.id === "UPL-8")!.failures[0]!.requestId).toMatch(/^conformance-/);
  });

  it("LIB-5: fails a folder delete that deletes the folder's contents", async () => {
    const report = await against("LIB-5");
    expect(failuresOf(report, "LIB-5")).toMatch(/that was in the deleted folder is no longer in the library/);
  });

  it("SUP-3: fails a support replay that creates a second message", async () => {
    const report = await against("SUP-3");
    expect(failuresOf(report, "SUP-3")).toMatch(/a replay answered another message/);
    expect(failuresOf(report, "SUP-3")).toMatch(/the thread holds the message 2 times/);
  });

  it("OAUTH-17: fails a revoke that answers 400 for an unknown token", async () => {
    const report = await against("OAUTH-17");
    expect(failuresOf(report, "OAUTH-17")).toMatch(/^revoking an unknown token answered 400 with a body of \d+ bytes: "\{\\"error\\":\\"invalid_request\\".*"; expected 200 with an empty body$/m);
  });

  it("OAUTH-3: fails a registration that issues a client_secret", async () => {
    const report = await against("OAUTH-3");
    expect(failuresOf(report, "OAUTH-3")).toMatch(/body\/client_secret/);
    expect(requestsOf(report, "OAUTH-3")).toContain("POST /oauth/register -> 201");
  });

  it("AUTH-3: fails a session that takes mutating requests from any Origin", async () => {
    const report = await against("AUTH-3");
    expect(failuresOf(report, "AUTH-3")).toMatch(/a POST over the session cookie with no Origin: expected 403 origin_mismatch, got 200/);
  });

  it("names for every double the rules it breaks by their registry ids; of the doubles run whole, only UPL-7 has a twin rule (ST-7)", () => {
    expect(DOUBLES.length).toBeGreaterThan(0);
    for (const d of DOUBLES) for (const id of [d.rule, ...(d.also ?? []), ...(d.with ?? [])]) expect(() => seedRule(id), id).not.toThrow();
    expect(DOUBLES.slice(0, 17).filter((d) => d.also).map((d) => [d.rule, d.also])).toEqual([["UPL-7", ["ST-7"]]]);
  });
});
