// The client against the hub simulator (src/simulator, demo keys of its fixtures). Every
// answer the client receives is checked against the contract (support/simulator.ts).
import { afterEach, describe, expect, it } from "vitest";
import { HubApiError, HubStreamTerminatedError, model3dType, type HubEvent } from "../../src/client/index.ts";
import { cuttingFetch, simulated, type Simulated } from "./support/simulator.ts";

let env: Simulated | undefined;
afterEach(async () => {
  const e = env;
  env = undefined;
  if (e) {
    await e.sim.close();
    expect(e.violations).toEqual([]);
  }
});

async function start(options?: Parameters<typeof simulated>[0]) {
  env = await simulated(options);
  return env;
}

const video = (prompt = "a cat on a boat") => ({ type: "video" as const, model: "video-model-a", prompt });

describe("client against the simulator", () => {
  it("SUB-1 ST-1 SUB-2: a submit answers 202 with Location; the same key replays the same record", async () => {
    const { hub } = await start();
    const client = hub();
    const first = await client.submit(video(), { idempotencyKey: "idem-sim-1" });
    expect(first.status).toBe(202);
    expect(first.response.headers.get("location")).toBe(`/v1/generations/${first.data.id}`);
    const replay = await client.submit(video(), { idempotencyKey: "idem-sim-1" });
    expect(replay.status).toBe(202);
    expect(replay.data.id).toBe(first.data.id);
  });

  it("SUB-3: the same key with another body is duplicate_key_conflict, thrown as HubApiError", async () => {
    const { hub } = await start();
    const client = hub();
    await client.submit(video("one"), { idempotencyKey: "idem-sim-2" });
    const error = (await client.submit(video("two"), { idempotencyKey: "idem-sim-2" }).catch((e: unknown) => e)) as HubApiError;
    expect(error).toBeInstanceOf(HubApiError);
    expect(error.code).toBe("duplicate_key_conflict");
    expect(error.status).toBe(409);
  });

  it("ST-5 EVT-11: waitForGeneration follows the stream to DONE", async () => {
    const { hub, answers } = await start();
    const client = hub();
    const { data } = await client.submit(video());
    const done = await client.waitForGeneration(data.id, { timeout: 20_000 });
    expect(done.status).toBe("DONE");
    expect(done.output_urls?.length).toBeGreaterThan(0);
    expect(answers.some((a) => a.startsWith("GET /v1/events 200"))).toBe(true);
  });

  it("ERR-1 GEN-7: a failed generation is returned as a FAILED record with its reason", async () => {
    const { hub } = await start();
    const client = hub();
    const { data } = await client.submit(video("[sim:fail=timeout] a cat"));
    const failed = await client.waitForGeneration(data.id, { timeout: 20_000 });
    expect(failed.status).toBe("FAILED");
    expect(failed.error?.reason).toBe("timeout");
  });

  it("SUB-3D: the 3D variant is submitted with model3dType", async () => {
    const { hub } = await start();
    const result = await hub().submit({ type: model3dType("model_3d"), model: "model3d-a", prompt: "a chair", format: "GLB" });
    expect(result.data.type).toBe("model_3d");
  });

  it("EVT-9 EVT-11: the stream resumes across forced disconnects with no lost or repeated event", async () => {
    const env = await start();
    const cutter = cuttingFetch(env.fetch, 4);
    const client = env.hub("ghk_demo_full", { fetch: cutter });
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const stream = client.events({ reconnectDelay: 10, onOpen: () => opened() });
    const seen: HubEvent[] = [];
    const submitted: string[] = [];
    const statuses = new Map<string, string[]>();
    const reading = (async () => {
      for await (const e of stream) {
        seen.push(e);
        if (e.event !== "generation.status_changed") continue;
        statuses.set(e.data.id, [...(statuses.get(e.data.id) ?? []), e.data.status]);
        if (submitted.length === 3 && submitted.every((id) => statuses.get(id)?.at(-1) === "DONE")) break;
      }
    })();
    await open;
    for (let i = 0; i < 3; i++) submitted.push((await client.submit(video(`clip ${i}`))).data.id);
    await reading;
    expect(cutter.cut).toBe(4);
    // One cut per connection: four connections, so at least three resumes (the last cut one may carry the last event).
    expect(stream.connections).toBeGreaterThanOrEqual(cutter.cut);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect(submitted).toHaveLength(3);
    for (const id of submitted) expect(statuses.get(id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
  });

  it("EVT-6: a Last-Event-ID that cannot be resumed gets reset, then the tracked generations are caught up", async () => {
    const { hub } = await start();
    const client = hub();
    const { data } = await client.submit(video());
    const stream = client.events({ lastEventId: "not-a-cursor-of-this-stream", track: [data.id] });
    const read: string[] = [];
    for await (const e of stream) {
      read.push(e.event);
      expect(e.event).toBe("reset");
      if (e.event !== "reset") break;
      expect(e.data.reason).toBe("cursor_unknown");
      expect(e.records.map((r) => r.id)).toEqual([data.id]);
      expect(stream.lastEventId).toBe(e.id);
      break;
    }
    expect(read).toEqual(["reset"]);
  });

  it("EVT-7: a key revoked while the stream is open ends it with terminated; reopening is refused as an HTTP error", async () => {
    const { hub, control } = await start();
    const key = (await control("POST", "keys", { purpose: "revoked during a stream" })) as { secret: string; id: string };
    const client = hub(key.secret);
    const stream = client.events({ reconnectDelay: 10 });
    const done = (async () => {
      for await (const _ of stream) void _;
    })().catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    await control("POST", `keys/${key.id}/revoke`);
    const error = (await done) as HubStreamTerminatedError;
    expect(error).toBeInstanceOf(HubStreamTerminatedError);
    expect(error.code).toBe("api_key_revoked");
    const again = await (async () => {
      for await (const _ of client.events()) void _;
    })().catch((e: unknown) => e);
    expect((again as HubApiError).code).toBe("api_key_revoked");
    expect((again as HubApiError).status).toBe(401);
  });

  it("PAGE-4 PAGE-1: paging yields every generation once, newest first, the same as one big page", async () => {
    const { hub } = await start();
    const client = hub();
    for (let i = 0; i < 5; i++) await client.submit(video(`page ${i}`));
    const paged: string[] = [];
    for await (const g of client.paginate("/v1/generations", { params: { query: { limit: 2 } } })) paged.push(g.id);
    const whole = (await client.GET("/v1/generations", { params: { query: { limit: 100 } } })).data.data.map((g) => g.id);
    expect(paged).toEqual(whole);
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.length).toBeGreaterThanOrEqual(5);
  });

  it("BATCH-1: 120 ids are read in calls of at most 50; the simulator never refuses them", async () => {
    const { hub, answers } = await start();
    const client = hub();
    const real = [];
    for (let i = 0; i < 3; i++) real.push((await client.submit(video(`batch ${i}`))).data.id);
    const ids = [...real, ...Array.from({ length: 117 }, (_, i) => `gen_unknown_${String(i).padStart(20, "0")}`)];
    const records = await client.statuses(ids);
    expect(records.map((r) => r.id).sort()).toEqual([...real].sort());
    expect(answers.filter((a) => a.startsWith("POST /v1/generations/status"))).toEqual(Array(3).fill("POST /v1/generations/status 200"));
  });

  it("EP-2 EP-3 ENV-4: results carry the echoed request id and the parsed rate limit", async () => {
    const { hub } = await start();
    const me = await hub().GET("/v1/me", { params: { header: { "X-Request-Id": "req_client_test" } } });
    expect(me.requestId).toBe("req_client_test");
    expect(me.rateLimit?.policy).toMatch(/^(default|account)$/);
    expect(me.rateLimit?.remaining).toEqual(expect.any(Number));
    expect(me.rateLimit?.quota).toEqual(expect.any(Number));
  });

  it("SUB-4 AUTH-7 ENV-4: refusals are HubApiErrors with the contract's code and the request id sent", async () => {
    const { hub } = await start();
    const free = (await hub("ghk_demo_free").submit(video(), { headers: { "X-Request-Id": "req_free_1" } }).catch((e: unknown) => e)) as HubApiError;
    expect(free.code).toBe("payment_required");
    expect(free.status).toBe(402);
    expect(free.request_id).toBe("req_free_1");
    const revoked = (await hub("ghk_demo_revoked").GET("/v1/me").catch((e: unknown) => e)) as HubApiError;
    expect(revoked.code).toBe("api_key_revoked");
  });

  it("LIM-4: an exhausted request window (429 with Retry-After) is waited out and the call succeeds", async () => {
    const { hub, answers } = await start({ clockSpeed: 1, rateLimits: { keyQuota: 2, windowSeconds: 1 } });
    const client = hub();
    for (let i = 0; i < 3; i++) await client.GET("/v1/me");
    expect(answers.filter((a) => a.endsWith(" 429")).length).toBeGreaterThanOrEqual(1);
    expect(answers.at(-1)).toBe("GET /v1/me 200");
  });
});
