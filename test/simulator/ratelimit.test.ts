// Request windows (`default` per key, `account` per account), the binding window in
// the RateLimit pair, 429 answers, and the submit and concurrency limits.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSim, type Reply, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { windowSeconds: 60, keyQuota: 3, accountQuota: 5, submitQuota: 100, concurrency: 100 } });
});
beforeEach(() => {
  sim.hub.reset();
  Object.assign(sim.hub.limiter.config, { keyQuota: 3, accountQuota: 5, submitQuota: 100, concurrency: 100 });
});
afterAll(() => sim.close());

const pair = (r: Reply) => [r.headers.get("ratelimit"), r.headers.get("ratelimit-policy")];

describe("request windows", () => {
  it("LIM-3: the pair names the binding window: the smaller remainder while both suffice, a refusing window itself", async () => {
    expect(pair(await sim.get("/v1/me"))).toEqual(['"default";r=2;t=60', '"default";q=3;w=60']);
    await sim.get("/v1/me");
    await sim.get("/v1/me");
    const refused = await sim.get("/v1/me");
    expect(refused.status).toBe(429);
    expect(pair(refused)).toEqual(['"default";r=0;t=60', '"default";q=3;w=60']);
    // The second key of the same account: its own window, the account's shared one.
    expect(pair(await sim.get("/v1/me", { key: "ghk_demo_second" }))).toEqual(['"account";r=1;t=60', '"account";q=5;w=60']);
    expect(pair(await sim.get("/v1/me", { key: "ghk_demo_second" }))).toEqual(['"account";r=0;t=60', '"account";q=5;w=60']);
    const ceiling = await sim.get("/v1/me", { key: "ghk_demo_second" });
    expect(ceiling.status).toBe(429);
    expect(pair(ceiling)).toEqual(['"account";r=0;t=60', '"account";q=5;w=60']);
  });

  it("LIM-4: 429 rate_limited carries Retry-After, retry_after_seconds and a request_rate detail", async () => {
    for (let i = 0; i < 3; i++) await sim.get("/v1/models");
    await sim.advance(15);
    const r = await sim.get("/v1/models");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("45");
    expect(r.json.error).toMatchObject({
      code: "rate_limited",
      retry_after_seconds: 45,
      details: [{ reason: "request_rate", scope: "default", limit: 3, current: 3 }],
    });
  });

  it("LIM-4: a refusal by the account ceiling does not consume the key's window", async () => {
    for (let i = 0; i < 3; i++) await sim.get("/v1/me");
    await sim.get("/v1/me", { key: "ghk_demo_second" });
    await sim.get("/v1/me", { key: "ghk_demo_second" });
    expect((await sim.get("/v1/me", { key: "ghk_demo_second" })).json.error.details[0].scope).toBe("account");
    sim.hub.limiter.config.accountQuota = 100;
    // Two requests spent on the second key, not three: one is left.
    const r = await sim.get("/v1/me", { key: "ghk_demo_second" });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit")).toBe('"default";r=0;t=60');
  });

  it("LIM-1: windows roll over on the simulator's clock", async () => {
    for (let i = 0; i < 3; i++) await sim.get("/v1/me");
    expect((await sim.get("/v1/me")).status).toBe(429);
    await sim.advance(60);
    expect((await sim.get("/v1/me")).status).toBe(200);
  });

  it("EVT-12: opening a stream costs one request of the window; frames cost nothing", async () => {
    sim.hub.limiter.config.keyQuota = 2;
    const s = await sim.open();
    expect((await sim.get("/v1/me")).headers.get("ratelimit")).toBe('"default";r=0;t=60');
    const refused = await sim.open().catch((e) => e);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.headers.get("retry-after")).toBe("60");
    s.drop();
  });
});

describe("submit and concurrency limits", () => {
  const image = { type: "image", model: "image-model-b", prompt: "p" };

  it("LIM-5: the submit window refuses with submit_rate; a replay spends none and still answers", async () => {
    Object.assign(sim.hub.limiter.config, { keyQuota: 100, accountQuota: 100, submitQuota: 2 });
    const first = await sim.submit(image, { idempotencyKey: "a" });
    await sim.submit(image, { idempotencyKey: "b" });
    const refused = await sim.submit(image, { idempotencyKey: "c" });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "rate_limited", retry_after_seconds: 60, details: [{ reason: "submit_rate", limit: 2, current: 2 }] });
    expect(refused.headers.get("retry-after")).toBe("60");
    const replay = await sim.submit(image, { idempotencyKey: "a" });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(first.json.id);
  });

  it("LIM-5: busy slots refuse with concurrency, without spending submit quota", async () => {
    Object.assign(sim.hub.limiter.config, { keyQuota: 100, accountQuota: 100, submitQuota: 3, concurrency: 2 });
    await sim.submit(image);
    await sim.submit(image);
    const busy = await sim.submit(image);
    expect(busy.status).toBe(429);
    expect(busy.json.error.details).toEqual([expect.objectContaining({ reason: "concurrency", limit: 2, current: 2 })]);
    expect(Number(busy.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(busy.json.error.retry_after_seconds).toBeUndefined();
    const me = (await sim.get("/v1/me")).json;
    expect(me.limits.concurrency).toEqual({ limit: 2, in_use: 2 });
    expect(me.limits.submissions.remaining).toBe(1);
    await sim.advance(Number(busy.headers.get("retry-after")));
    expect((await sim.submit(image)).status).toBe(202);
  });

  it("LIM-6: GET /v1/me reports the current quotas", async () => {
    const me = (await sim.get("/v1/me")).json;
    expect(me.limits.requests).toEqual({ default: { quota: 3, window_seconds: 60 }, account: { quota: 5, window_seconds: 60 } });
    expect(me.limits.submissions).toMatchObject({ limit: 100, window_seconds: 60 });
  });
});
