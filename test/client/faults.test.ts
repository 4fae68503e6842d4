// The typed client against the real simulator (a server on a free port) while it
// misbehaves on purpose: retries, idempotent resubmits and stream resumes (support/faults.ts).
// Every answer the client receives is held to the contract.
import { afterEach, beforeEach, describe, expect } from "vitest";
import { faultCases } from "./support/faults.ts";
import { simulated, type Simulated } from "./support/simulator.ts";

let env: Simulated;
beforeEach(async () => {
  env = await simulated({ heartbeatSeconds: 1 });
});
afterEach(async () => {
  await env.sim.close();
  expect(env.violations).toEqual([]);
});

describe("the client against a faulty simulator", () => {
  faultCases(() => ({
    client: (options) => env.hub("ghk_demo_full", options),
    addFault: (fault) => env.control("POST", "faults", fault),
    faults: async () => ((await env.control("GET", "faults")) as { data: never[] }).data,
    answers: () => env.answers,
  }));
});
