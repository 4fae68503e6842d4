// The test-runner side of sandboxes, in process against startSimulator on a free port:
// `openSandbox()` (a vitest or jest suite sharing one running simulator; the Playwright
// fixtures are made of it) answers a hub of the suite's own with its keys and a control
// bound to it; `defaultHub()` is the default hub in the same shape (a suite without
// sandboxes); a simulator that is not there is one line saying how to start one.
// (The Playwright fixtures themselves run in a fresh project from the packed packages:
// test/devtools/playwright.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHubClient } from "../../src/client/index.ts";
import { ControlError, startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { defaultHub, hubUrlFromEnv, openSandbox } from "../../src/simulator/runners/sandbox.ts";

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, clockSpeed: 0, maxSandboxes: 3 });
});

afterAll(async () => {
  await sim?.close();
});

describe("openSandbox: a hub of a suite's own on a running simulator", () => {
  it("answers its id, base address, keys and a control bound to it; the typed client given its base address and a demo key works in it alone; delete ends it", async () => {
    const hub = await openSandbox({ hubURL: sim.url });
    expect(hub.id).toMatch(/^sbx_/);
    expect(hub.baseURL).toBe(`${sim.url}/sandboxes/${hub.id}`);
    expect(hub.keys.full).toBe(`ghk_${hub.id}_full`);
    const app = createHubClient({ baseUrl: hub.baseURL, apiKey: "ghk_demo_full" });
    const { data } = await app.submit({ type: "image", model: "image-model-a", prompt: "a fox in a suite" });
    await hub.control.advance(60);
    expect((await app.GET("/v1/generations/{id}", { params: { path: { id: data.id } } })).data?.status).toBe("DONE");
    expect((await hub.control.requests({ route: "submitGeneration" })).map((r) => r.credential?.id)).toEqual(["key_full"]);
    expect(sim.hub.state.generations.has(data.id)).toBe(false);
    await hub.delete();
    await hub.delete(); // gone already: no error
    expect(sim.sandboxes.hubOf(hub.id!)).toBeUndefined();
  });

  it("starts from the scenario named; at the cap the simulator's refusal comes as ControlError", async () => {
    const made = [await openSandbox({ hubURL: sim.url, scenario: "free-account" })];
    expect((await made[0]!.control.state()).scenario).toBe("free-account");
    made.push(await openSandbox({ hubURL: sim.url }), await openSandbox({ hubURL: sim.url }));
    const refused = await openSandbox({ hubURL: sim.url }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ControlError);
    expect((refused as ControlError).status).toBe(503);
    for (const hub of made) await hub.delete();
    expect(made).toHaveLength(3);
  });

  it("no simulator at the address: one line naming it and how to start one", async () => {
    const error = (await openSandbox({ hubURL: "http://127.0.0.1:1" }).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^No Generation Hub simulator answers at http:\/\/127\.0\.0\.1:1 \(.+\): start one \(npx generation-hub mock, or startSimulator\(\)\), or point HUB_BASE_URL/);
    expect(error.message.split("\n")).toHaveLength(1);
  });

  it("the address comes from HUB_BASE_URL, else http://127.0.0.1:4010", () => {
    const saved = process.env.HUB_BASE_URL;
    try {
      delete process.env.HUB_BASE_URL;
      expect(hubUrlFromEnv()).toBe("http://127.0.0.1:4010");
      process.env.HUB_BASE_URL = sim.url;
      expect(hubUrlFromEnv()).toBe(sim.url);
    } finally {
      if (saved === undefined) delete process.env.HUB_BASE_URL;
      else process.env.HUB_BASE_URL = saved;
    }
  });
});

describe("defaultHub: the simulator's default hub in a sandbox's shape (a suite without sandboxes)", () => {
  it("resets it and answers the scenario's keys by role", async () => {
    await fetch(`${sim.url}/_sim/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ speed: 7 }) });
    const hub = await defaultHub({ hubURL: sim.url });
    expect(hub.id).toBeNull();
    expect(hub.baseURL).toBe(sim.url);
    expect(hub.apiKey).toBe("ghk_demo_full");
    expect(hub.keys.readonly).toBe("ghk_demo_readonly");
    expect(sim.hub.clock.speed).toBe(0);
  });
});
