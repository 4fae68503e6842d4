// The order of a run and the facts checks hand on: derived from each check's one
// declaration (facts/check.ts, run/plan.ts), never from a list kept in order by hand; a
// check reads and learns only what it declares; a fact the server answered wrongly for
// fails the check that could not learn it, and its dependents say which fact is missing
// and why.
import { describe, expect, it } from "vitest";
import { CHECKS } from "../../src/conformance/index.ts";
import { CheckContext, type Check } from "../../src/conformance/facts/check.ts";
import type { AnyFact } from "../../src/conformance/facts/learnt.ts";
import { FactStore } from "../../src/conformance/facts/store.ts";
import { AnswersSeen } from "../../src/conformance/judge/answer-checks/index.ts";
import { Results } from "../../src/conformance/judge/results.ts";
import { resolve } from "../../src/conformance/run/options.ts";
import { planRun } from "../../src/conformance/run/plan.ts";
import type { Target } from "../../src/conformance/target/target.ts";
import { pathOnly } from "./support/proxy.ts";
import { startProxy } from "./support/proxy.ts";
import { runFull, startSim } from "./support/run.ts";

const waits = (c: Check): readonly AnyFact[] => [...(c.needs?.facts ?? []), ...(c.needs?.uses ?? [])];
const PHASE = { first: 0, main: 1, last: 2, "after time passes": 3, "over the run": 4 } as const;

/** A check of a declaration alone (it sends nothing). */
function check(name: string, declared: Partial<Check>): Check {
  return { name, rules: ["W-1"], run: async () => undefined, ...declared };
}

describe("the order of a run", () => {
  it("runs every check after the checks that provide what it waits for, after the other users of what it alters, first ones first and those over the run last", () => {
    const plan = planRun(CHECKS);
    expect(new Set(plan)).toEqual(new Set(CHECKS));
    const at = new Map(plan.map((c, i) => [c, i]));
    let edges = 0;
    for (const c of plan) {
      for (const f of waits(c)) {
        for (const p of CHECKS.filter((x) => x !== c && x.provides?.includes(f))) {
          edges++;
          expect(at.get(p)!, `"${c.name}" waits for ${f} from "${p.name}"`).toBeLessThan(at.get(c)!);
        }
      }
      for (const f of c.alters ?? []) {
        // A user of a later phase runs after it anyway, taking the fact as it was left.
        for (const u of CHECKS.filter((x) => x !== c && waits(x).includes(f) && !x.alters?.includes(f) && PHASE[x.when ?? "main"] <= PHASE[c.when ?? "main"])) {
          edges++;
          expect(at.get(u)!, `"${c.name}" alters ${f}, which "${u.name}" uses`).toBeLessThan(at.get(c)!);
        }
      }
    }
    expect(edges).toBeGreaterThan(30);
    const phases = plan.map((c) => PHASE[c.when ?? "main"]);
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
    expect(plan[0]!.name).toBe("who the key is");
    expect(plan.at(-1)!.when).toBe("over the run");
  });

  it("takes the same order whatever order the registry lists the checks in", () => {
    const names = planRun(CHECKS).map((c) => c.name);
    expect(names).toHaveLength(CHECKS.length);
    for (const by of [(c: Check) => c.name, (c: Check) => c.rules.join(), (c: Check) => [...c.name].reverse().join("")]) {
      const shuffled = [...CHECKS].sort((a, b) => by(a).localeCompare(by(b)));
      expect(planRun(shuffled).map((c) => c.name)).toEqual(names);
    }
  });

  it("LIM-5: with --only, runs the checks of the rules chosen, those that always run, and those that provide what they need", () => {
    expect(planRun(CHECKS, ["LIM-5"]).map((c) => c.name)).toEqual([
      "who the key is",
      "price estimates",
      "across calls: a submit between page reads, its replay, an estimate, its statuses on the stream",
      "across calls: a refusal for busy slots spends no submit quota",
    ]);
  });

  it("refuses declarations it cannot order: a fact no check provides, a circle, a first check that waits for a later one", () => {
    expect(() => planRun([check("a", { needs: { facts: ["models"] } })])).toThrow(/^the check "a" waits for models \(the model catalog\), which no check provides$/);
    expect(() => planRun([check("a", { needs: { facts: ["models"] }, provides: ["priced"] }), check("b", { needs: { facts: ["priced"] }, provides: ["models"] })])).toThrow(/^the checks "a", "b" wait for each other's facts in a circle$/);
    expect(() => planRun([check("a", { when: "first", needs: { uses: ["models"] } }), check("b", { provides: ["models"] })])).toThrow(/^the check "a" \(first\) waits for "b" \(undefined\), over models$/);
  });
});

describe("the facts checks hand on", () => {
  it("a check reads and learns only the facts it declares", () => {
    const c = new CheckContext(resolve({ baseUrl: "http://h", apiKey: "k" }), undefined as unknown as Target, new Results(), new AnswersSeen(), new FactStore());
    c.running(check("reads the catalog", { needs: { uses: ["models", "uploads"] }, provides: ["priced"] }));
    expect(c.known("models")).toBeUndefined();
    expect(c.known("uploads")).toEqual([]);
    expect(c.whyUnknown("models")).toBe("no check learnt it");
    c.learn("priced", []);
    expect(() => c.known("secondAccount")).toThrow(/^the check "reads the catalog" reads secondAccount \(a second account\) without declaring it/);
    expect(() => c.learn("models", [])).toThrow(/^the check "reads the catalog" learns models \(the model catalog\) without declaring it/);
    expect(() => c.fact("models")).toThrow(/without declaring it \(needs\.facts\)/);
  });

  it("PRICE-2 SUB-1: a server that prices no valid body fails the price estimates (the fact could not be learnt), and the submits say which fact they miss and why", async () => {
    const sim = await startSim();
    // Every estimate is refused, the valid minimal ones too.
    const proxy = await startProxy(sim.url, {
      answer(req, a) {
        if (req.method !== "POST" || pathOnly(req) !== "/v1/pricing/estimate" || a.status !== 200) return a;
        const requestId = String(req.headers["x-request-id"] ?? "r");
        return { ...a, status: 400, body: JSON.stringify({ error: { code: "invalid_request", message: "Refused.", user_message: "Refused.", request_id: requestId, details: [] } }) };
      },
    });
    try {
      const report = await runFull(sim, proxy.url, { quick: true, only: ["PRICE-2", "SUB-1"] });
      const row = (id: string) => report.rows.find((r) => r.id === id)!;
      expect(row("PRICE-2").verdict).toBe("fail");
      expect(row("PRICE-2").failures.map((f) => f.message)).toContainEqual(expect.stringMatching(/^none of \d+ minimal video or image bodies of the catalog was priced: the estimate answered 400 invalid_request: a body the server prices could not be learnt$/));
      expect(row("PRICE-2").failures[0]!.request).toMatch(/^POST \/v1\/pricing\/estimate -> 400$/);
      expect(row("SUB-1")).toMatchObject({ verdict: "n/a", reason: expect.stringMatching(/^needs a body the server prices: none of \d+ minimal video or image bodies of the catalog was priced: the estimate answered 400 invalid_request$/) });
    } finally {
      await proxy.close();
      await sim.close();
    }
  });
});
