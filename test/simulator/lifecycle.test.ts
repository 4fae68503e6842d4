// A submitted generation moves through its states on the simulator's clock, and the
// event stream reports each change; the result file is served to the owner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaledTiming } from "../../src/simulator/state/options.ts";
import { runCli } from "./support/cli.ts";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(() => sim.close());

describe("generation life cycle", () => {
  it("ST-1: a submit answers 202 with Location and the record, and emits an event for the creation", async () => {
    const stream = await sim.open();
    const r = await sim.submit({ type: "image", model: "image-model-a", prompt: "a fox" });
    expect(r.status).toBe(202);
    expect(r.headers.get("location")).toBe(`/v1/generations/${r.json.id}`);
    expect(r.json).toMatchObject({ type: "image", status: "QUEUED", output_urls: [] });
    await stream.untilFrames(1);
    expect(stream.frames[0]).toMatchObject({ event: "generation.status_changed", data: { id: r.json.id, type: "image", status: "QUEUED", deleted: false } });
    stream.drop();
  });

  it("EVT-11: every transition enters the stream, in order, up to DONE; the result downloads", async () => {
    const stream = await sim.open();
    const r = await sim.submit({ type: "image", model: "image-model-a", prompt: "two foxes", n_variants: 2 });
    await sim.advance(60);
    await stream.until((s) => s.frames.some((f) => f.data.status === "DONE"));
    const mine = stream.frames.filter((f) => f.data.id === r.json.id).map((f) => f.data.status);
    expect(mine).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    const done = await sim.get(`/v1/generations/${r.json.id}`);
    expect(done.json.status).toBe("DONE");
    expect(done.json.output_urls).toHaveLength(2);
    const file = await sim.call("GET", new URL(done.json.output_urls[1]).pathname);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect([...file.bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    stream.drop();
  });
});

describe("--timing-scale (a CI run that waits on generations)", () => {
  it("multiplies the time a generation spends in each state: at 0.1 a video is DONE after 1 s that leave it RUNNING at 1", async () => {
    const statusAfter = async (timing: ReturnType<typeof scaledTiming> | undefined) => {
      const quick = await startSim({ clockSpeed: 0, ...(timing ? { timing } : {}) });
      try {
        const r = await quick.submit({ type: "video", model: "video-model-a", prompt: "a lighthouse", duration: 5 });
        await quick.advance(1.001);
        return (await quick.get(`/v1/generations/${r.json.id}`)).json.status;
      } finally {
        await quick.close();
      }
    };
    expect(await statusAfter(scaledTiming(0.1))).toBe("DONE");
    expect(await statusAfter(undefined)).toBe("PENDING");
    expect(scaledTiming(0.1)).toMatchObject({ queuedMs: 100, pendingMs: 100, runningMs: { video: 800, image: 300 }, slowMs: 30_000 });
  });

  it("npm start refuses a scale that is not above 0 in one line", async () => {
    const refused = await runCli(["--timing-scale", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain("--timing-scale (SIM_TIMING_SCALE) is a number above 0, got 0");
  });
});
