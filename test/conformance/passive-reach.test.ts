// Passive conformance's reach (issue 25): each broken server of DOUBLES behind the passive
// proxy, the journey's ordinary traffic (an e2e suite's, bad requests on purpose included)
// through it, and the share of the bugs that traffic exercises that passive judging
// reports, from the proxy and from the HAR of the same traffic, held to a floor
// (support/passive-reach.ts says what exercised and caught mean). The correct server's
// traffic gives no finding (passive.test.ts). About 15 s on this machine: 80 simulators,
// one journey each, two at a time.
import { describe, expect, it } from "vitest";
import { renderHar, renderJson, renderTable } from "../../src/conformance/index.ts";
import { DOUBLES } from "./support/doubles.ts";
import { reachOf, tally } from "./support/passive-reach.ts";

const KEY = "ghk_demo_full";

/**
 * The share of the broken servers whose bug the journey's traffic exercises that passive
 * judging reports under the bug's own rule: 22 of 28 when it was last raised. The misses:
 * the ledger in whole credits (BILL-1), a status change left out of the event stream (EVT-11, twice), Russian never
 * given (ENV-3: whether a code has a translation is not in the trace), a folder name taken
 * twice (LIB-3: another client may have deleted the first), and offset cursors that repeat
 * a record only when one was created between the page reads (PAGE-4). A floor a little
 * under the figure (a stream's timing may leave a double unexercised), not a list: a
 * change that loses reach fails here.
 */
const CAUGHT_FLOOR = 0.7;
/** The journey exercises at least this many of the broken servers (its traffic must not shrink unseen). */
const EXERCISED_FLOOR = 25;

describe("passive proxy in front of broken servers", () => {
  it("reports most of the bugs the client's ordinary traffic exercises, each said as it happens, the same from a HAR of that traffic, the key masked everywhere", { timeout: 120_000 }, async () => {
    expect(DOUBLES.length).toBeGreaterThan(0);
    // Two at a time (each double has a simulator of its own): the file stays quick.
    const reach: Awaited<ReturnType<typeof reachOf>>[] = [];
    const queue = [...DOUBLES];
    await Promise.all([0, 1].map(async () => {
      for (let d = queue.shift(); d; d = queue.shift()) reach.push(await reachOf(d));
    }));
    expect(reach).toHaveLength(DOUBLES.length);
    const figures = tally(reach);
    const lines = reach.filter((r) => r.fired.length > 0).map((r) => `${r.caught ? "caught" : "missed"}${r.caughtFromHar ? "" : " (not from the HAR)"} ${r.rule} ${r.title}: ${r.failing.join(" ") || "no finding"}`);
    expect(figures.exercised, lines.join("\n")).toBeGreaterThanOrEqual(EXERCISED_FLOOR);
    expect(figures.caught / figures.exercised, lines.join("\n")).toBeGreaterThanOrEqual(CAUGHT_FLOOR);
    // The HAR of the same traffic, judged offline, reports as much.
    expect(figures.caughtFromHar / figures.exercised, lines.join("\n")).toBeGreaterThanOrEqual(CAUGHT_FLOOR);

    const caught = reach.filter((r) => r.caught);
    expect(caught.length).toBeGreaterThan(0);
    for (const r of caught) {
      const rules = [r.rule, ...(DOUBLES.find((d) => d.title === r.title)!.also ?? [])];
      expect(r.said.some((line) => rules.some((id) => line.startsWith(`FAIL ${id} `))), `${r.title}: ${r.said.join("\n")}`).toBe(true);
      // The key sits in every request's Authorization: it is masked by where it sits.
      for (const text of [renderJson(r.report), renderTable(r.report), renderHar(r.report), ...r.said]) expect(text).not.toContain(KEY);
    }
  });
});

