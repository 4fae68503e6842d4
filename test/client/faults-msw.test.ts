// The typed client through Mock Service Worker (msw/node) while the simulator misbehaves
// on purpose: the same cases as against the server (support/faults.ts), with the faults
// put in force through the handlers' typed control methods.
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { createHubClient } from "../../src/client/index.ts";
import { createHubHandlers } from "../../src/simulator/msw/index.ts";
import { faultCases } from "./support/faults.ts";
import { checkingFetch } from "./support/simulator.ts";

const BASE = "https://faulty-hub.example";
// A running clock (generations finish on their own) and a heartbeat a second.
const { handlers, control, hub } = createHubHandlers({ baseUrl: BASE, clockSpeed: 100, heartbeatSeconds: 1 });
const server = setupServer(...handlers);
let violations: string[] = [];
let answers: string[] = [];
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(async () => {
  await control.reset();
  expect(violations).toEqual([]);
  violations = [];
  answers = [];
});
afterAll(() => {
  server.close();
  hub.shutdown();
});

describe("the client through Mock Service Worker, faults on", () => {
  faultCases(() => ({
    client: (options) => createHubClient({ baseUrl: BASE, apiKey: "ghk_demo_full", fetch: checkingFetch(BASE, violations, answers), backoffBase: 20, backoffMax: 200, ...options }),
    addFault: (fault) => control.addFault(fault),
    faults: () => control.faults(),
    answers: () => answers,
  }));
});
