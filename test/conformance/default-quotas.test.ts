// The suite against the simulator as `generation-hub mock` starts it (its default quotas:
// 300 requests per key and minute, 8 generations at once, a real clock), with generated
// submits: the busy-slots refusals they meet are not a rate window's, and no false alarm
// is raised.
import { describe, expect, it } from "vitest";
import { AnswerJudge } from "../../src/conformance/judge/answer-checks/index.ts";
import { Results } from "../../src/conformance/judge/results.ts";
import { DEFAULT_RATE_LIMITS } from "../../src/simulator/state/options.ts";
import { runConformance } from "../../src/conformance/index.ts";
import { explain, failing, runFull, SIMULATOR_FINDINGS, withSim } from "./support/run.ts";
import { type Exchange } from "../../src/conformance/target/exchange.ts";

/** A 429 `rate_limited` of `POST /v1/generations` whose RateLimit pair says `r=remaining`. */
function refusal(reason: string, remaining: number): Exchange {
  const json = { error: { code: "rate_limited", message: "Too many requests.", user_message: "Too many requests.", request_id: "r1", details: [{ reason, message: reason }] } };
  const headers = new Headers({ "content-type": "application/json", "x-request-id": "r1", ratelimit: `"default";r=${remaining};t=30`, "ratelimit-policy": '"default";q=300;w=60', "retry-after": "5" });
  const sent = { method: "POST", url: "http://h/v1/generations", headers: {} };
  return { method: "POST", path: "/v1/generations", status: 429, headers, text: JSON.stringify(json), json, label: "main", sentRequestId: "r1", record: { sent, status: 429, headers: [...headers], body: { text: "", size: 0 }, startedAt: "", ms: 0 }, cite: { request: "POST /v1/generations -> 429" } };
}

/** A 200 to `GET /v1/me` of the main key sent at `start` (ms since the epoch) and answered `ms` later, whose RateLimit pair says `r=remaining`, `t=30`. */
function counted(remaining: number, start: number, ms: number): Exchange {
  const headers = new Headers({ "content-type": "application/json", ratelimit: `"default";r=${remaining};t=30`, "ratelimit-policy": '"default";q=300;w=60' });
  const sent = { method: "GET", url: "http://h/v1/me", headers: {} };
  return { method: "GET", path: "/v1/me", status: 200, headers, text: "{}", json: {}, label: "main", record: { sent, status: 200, headers: [...headers], body: { text: "{}", size: 2 }, startedAt: new Date(start).toISOString(), ms }, cite: { request: "GET /v1/me -> 200" } };
}

function lim3(...answers: Exchange[]): string[] {
  const results = new Results();
  const judge = new AnswerJudge(results, false);
  for (const ex of answers) judge.exchange(ex, { rule: "SUB-1", bare: false, elapsedSeconds: 0 });
  return results.rows().find((r) => r.id === "LIM-3")!.failures.map((f) => f.message);
}

describe("rate windows and the other limits that answer 429 rate_limited", () => {
  it("LIM-3: a refusal for busy slots, a full queue or the submit window carries the request window's own remainder; a request window's refusal says r=0", () => {
    for (const reason of ["concurrency", "queue_full", "submit_rate"]) expect(lim3(refusal(reason, 169)), reason).toEqual([]);
    expect(lim3(refusal("request_rate", 0))).toEqual([]);
    expect(lim3(refusal("request_rate", 169))).toEqual(["a refusing window must describe itself: r=169 on a 429 rate_limited of the request window (details reason request_rate)"]);
  });

  it("LIM-3: the countdown compares two answers of one credential only when the second request was sent after the first was answered (overlapping ones may be counted in either order)", () => {
    const at = Date.parse("2026-11-28T12:00:00Z");
    expect(lim3(counted(250, at, 10), counted(250, at + 5, 15))).toEqual([]);
    expect(lim3(counted(250, at, 10), counted(250, at + 10, 5))).toEqual(["remaining did not go down within the default window (r=250 then r=250)"]);
  });

  it("LIM-3 SUB-1: --generate --allow-spend against the simulator with its default quotas fails nothing, busy slots included", { timeout: 120_000 }, async () => {
    await withSim({ clockSpeed: 1 }, async (sim) => {
      expect(sim.hub.limiter.config).toEqual(DEFAULT_RATE_LIMITS);
      const report = await runFull(sim, sim.url, { quick: true, maxWaitSeconds: 100_000, generate: { perOperation: 50, seed: 42 } });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([...SIMULATOR_FINDINGS].sort());
      // The run met what the issue met: submits refused for busy slots, and windows waited for.
      const submits = report.coverage.statuses.operations.find((o) => o.operationId === "submitGeneration")!;
      expect(submits.declared["429"]).toBeGreaterThan(0);
      expect(report.requests.waitedSeconds).toBeGreaterThan(0);
      expect(report.stopped).toBeUndefined();
    });
  });

  it("says a wait for a rate window in real time on the progress channel as it starts, with how much of --max-wait it takes", { timeout: 60_000 }, async () => {
    // A 6 s window of 30 requests per key, a real clock and no `advance`: the suite sleeps once.
    await withSim({ clockSpeed: 1, rateLimits: { windowSeconds: 6, keyQuota: 30, accountQuota: 1000 } }, async (sim) => {
      const progress: string[] = [];
      const verbose: string[] = [];
      const report = await runConformance({ baseUrl: sim.url, apiKey: "ghk_demo_full", only: ["PAGE-3"], progress: (line) => progress.push(line), log: (line) => verbose.push(line) });
      expect(report.requests.waitedSeconds).toBeGreaterThanOrEqual(5);
      expect(failing(report), explain(report)).toEqual([]);
      expect(progress[0]).toMatch(/^waiting [5-6] s for a rate window: the default window has \d requests left \([5-6] s of --max-wait 120 s\)$/);
      expect(progress.every((line) => /^waiting |^ {2}still waiting/.test(line))).toBe(true);
      // Said once: not again among the --verbose lines.
      expect(verbose.filter((line) => /waiting/.test(line))).toEqual([]);
    });
  });
});
