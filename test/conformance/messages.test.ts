// What the suite says when an answer lacks what a message quotes: it says what was
// missing, never `undefined` (a replay's message read "after the generation reached
// undefined answered 202").
import { describe, expect, it } from "vitest";
import { brokenWording } from "./support/against.ts";
import { editJson, pathOnly } from "./support/proxy.ts";
import { startProxy } from "./support/proxy.ts";
import { explain, runFull, startSim } from "./support/run.ts";

describe("messages of the suite", () => {
  it("SUB-2: a generation whose read has no status: the replay is held to its record, and no message says undefined", async () => {
    const sim = await startSim();
    const proxy = await startProxy(sim.url, {
      answer(req, a) {
        if (req.method !== "GET" || !/^\/v1\/generations\/[^/]+$/.test(pathOnly(req)) || a.status !== 200) return a;
        return editJson(a, ({ status: _status, ...record }) => record);
      },
    });
    try {
      const report = await runFull(sim, proxy.url, { only: ["SUB-2", "PRICE-1"], quick: true }); // PRICE-1: the bodies the server prices, which the submits use
      // The read without a status is not the replay's fault: the replay repeats the record.
      expect(report.rows.find((r) => r.id === "SUB-2")!.verdict, explain(report)).toBe("pass");
      expect(brokenWording(report)).toEqual([]);
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});
