// Blind spots the suite had: a route a small server never mounted (express's HTML 404)
// stopped the run as if the key were refused and passed the rules the answer broke; a
// server that never localises and one that puts a stack trace beside the envelope's
// fields passed. Each is a single fault in front of the simulator.
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/conformance/index.ts";
import { missingRoutes, neverLocalised, stackTraces } from "./support/faults.ts";
import { startProxy, type Rewrite } from "./support/proxy.ts";
import { explain, failing, runFull, startSim } from "./support/run.ts";

async function through(rewrite: Rewrite, extra: Parameters<typeof runFull>[2] = {}): Promise<Report> {
  const sim = await startSim();
  const proxy = await startProxy(sim.url, rewrite);
  try {
    return await runFull(sim, proxy.url, extra);
  } finally {
    await proxy.close();
    await sim.close();
  }
}

function row(report: Report, id: string) {
  return report.rows.find((r) => r.id === id)!;
}

describe.concurrent("a server that never mounted GET /v1/whoami (express's HTML 404)", { timeout: 120_000 }, () => {
  it("EP-4 EP-1 EP-2 W-13 W-5: reports the missing route by its operation, fails the rules its answer broke, and runs the rest", async () => {
    const report = await through(missingRoutes(["GET /v1/whoami"]));
    expect(report.stopped, explain(report)).toBeUndefined();
    expect(row(report, "EP-4").failures.map((f) => f.message).join("\n")).toMatch(/readWhoami \(GET \/v1\/whoami\) is not routed: 404/);
    expect(row(report, "EP-4").failures.map((f) => f.message).join("\n")).not.toMatch(/API key/);
    for (const id of ["EP-1", "EP-2", "W-13", "W-5"]) {
      expect(row(report, id).verdict, `${id}: ${explain(report)}`).toBe("fail");
      expect(row(report, id).failures.some((f) => f.request === "GET /v1/whoami -> 404"), id).toBe(true);
    }
    // The rest of the suite ran: rules far from whoami still pass.
    for (const id of ["PAGE-3", "CAT-4", "SUB-1", "UPL-7"]) expect(row(report, id).verdict, id).toBe("pass");
    expect(failing(report)).not.toContain("PAGE-3");
  });

  it("CAT-4 CAT-5 EP-4: --only CAT,EP-4 gets past it and checks the catalog", async () => {
    const report = await through(missingRoutes(["GET /v1/whoami"]), { only: ["CAT", "EP-4"] });
    expect(report.stopped).toBeUndefined();
    expect(row(report, "CAT-4").verdict, explain(report)).toBe("pass");
    expect(row(report, "CAT-5").verdict, explain(report)).toBe("pass");
    expect(row(report, "EP-4").failures[0]!.message).toMatch(/readWhoami \(GET \/v1\/whoami\) is not routed/);
  });
});

describe.concurrent("single faults in the envelope", { timeout: 120_000 }, () => {
  it("ENV-3: fails a server that never localises user_message for Accept-Language: ru", async () => {
    const report = await through(neverLocalised());
    expect(failing(report), explain(report)).toEqual(["ENV-3"]);
    expect(row(report, "ENV-3").failures[0]!.message).toMatch(/Accept-Language: ru.*none .*Russian/);
  });

  it("ENV-6: fails a server that adds error.stack with a stack trace", async () => {
    const report = await through(stackTraces("stack"));
    expect(failing(report), explain(report)).toEqual(["ENV-6"]);
    expect(row(report, "ENV-6").failures[0]!.message).toMatch(/error\.stack.*at validateBody/);
  });

  it("ENV-6: fails a server that adds error.trace as a list of frames", async () => {
    const report = await through(stackTraces("trace"));
    expect(failing(report), explain(report)).toEqual(["ENV-6"]);
    expect(row(report, "ENV-6").failures[0]!.message).toMatch(/error\.trace\.0.*at validateBody/);
  });
});
