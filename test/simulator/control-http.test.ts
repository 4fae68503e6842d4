// HubControl over HTTP: the same typed methods as in process, for a test runner in another
// process than the simulator (a Playwright worker, the conformance suite). The transport
// alone differs; the control routes and their guard are the same.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { ControlError, HubControl } from "../../src/simulator/msw/index.ts";

let sim: RunningSimulator;
let control: HubControl;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, clockSpeed: 0, docsDir: "/nonexistent" });
  control = HubControl.overHttp(sim.url);
});
afterAll(() => sim.close());

describe("HubControl.overHttp", () => {
  it("reads and changes the hub through /_sim/ as the in-process control does", async () => {
    const before = await control.clock();
    const after = await control.advance(90);
    expect(after.now_ms - before.now_ms).toBe(90_000);
    expect(sim.hub.clock.now()).toBe(after.now_ms);

    const key = await control.createKey({ scopes: ["models:read"], purpose: "over HTTP" });
    expect(sim.hub.state.keys.get(key.secret)?.scopes).toEqual(["models:read"]);
    const models = await fetch(`${sim.url}/v1/models`, { headers: { authorization: `Bearer ${key.secret}` } });
    await models.arrayBuffer();
    expect(models.status).toBe(200);
    await control.revokeKey(key.id);
    expect(sim.hub.state.keys.get(key.secret)?.revoked).toBe(true);
    // A POST without a body goes as JSON, which the control interface's guard requires.
    expect(await control.reset()).toMatchObject({ reset: true });
  });

  it("rejects with ControlError carrying the status and the envelope when a route refuses", async () => {
    const refused = await control.generation("gen_no_such_generation_here").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ControlError);
    expect((refused as ControlError).status).toBe(404);
    expect((refused as ControlError).body).toMatchObject({ error: { code: "not_found" } });
  });

  it("rejects with ControlError, not a JSON parse error, when the answer is not the control interface's", async () => {
    const elsewhere = HubControl.overHttp(`${sim.url}/docs`);
    const refused = await elsewhere.clock().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ControlError);
    expect((refused as ControlError).message).toMatch(/^GET \/_sim\/clock answered \d{3}/);
  });
});
