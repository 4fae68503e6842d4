// The envelope and the headers every answer carries: request ids, Russian wording,
// caching, the RateLimit pair, unknown routes and the routes of part 2.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { operations } from "../../src/contract/index.ts";
import { envelope, refuse } from "../../src/simulator/domain/refusal.ts";
import { russian } from "../../src/simulator/domain/messages-ru.ts";
import { startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ demoData: true });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

describe("request ids", () => {
  it("EP-2 ENV-4: X-Request-Id is echoed in the header and in error.request_id", async () => {
    const ok = await sim.get("/v1/me", { headers: { "x-request-id": "client-abc-123" } });
    expect(ok.headers.get("x-request-id")).toBe("client-abc-123");
    const refused = await sim.get("/v1/me", { key: null, headers: { "x-request-id": "client-xyz" } });
    expect(refused.headers.get("x-request-id")).toBe("client-xyz");
    expect(refused.json.error.request_id).toBe("client-xyz");
  });

  it("EP-2: without X-Request-Id one is generated, different for each request, and repeated in the body", async () => {
    const a = await sim.get("/v1/me", { key: null });
    const b = await sim.get("/v1/me", { key: null });
    expect(a.headers.get("x-request-id")).toBeTruthy();
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
    expect(a.json.error.request_id).toBe(a.headers.get("x-request-id"));
  });
});

describe("user_message", () => {
  it("ENV-3: Russian only with Accept-Language: ru; English (equal to message) otherwise", async () => {
    const en = await sim.get("/v1/me", { key: null });
    expect(en.json.error.user_message).toBe(en.json.error.message);
    const ru = await sim.get("/v1/me", { key: null, headers: { "accept-language": "ru-RU,ru;q=0.9,en;q=0.8" } });
    expect(ru.json.error.user_message).toBe(russian.unauthorized);
    expect(ru.json.error.message).toBe(en.json.error.message);
    const other = await sim.get("/v1/me", { key: null, headers: { "accept-language": "de, ru;q=0.5" } });
    expect(other.json.error.user_message).toBe(other.json.error.message);
  });

  it("ENV-3: with no translation, user_message equals message even for ru", () => {
    expect(russian.unreadable_record).toBeUndefined();
    const body = envelope(refuse("unreadable_record"), "r1", "ru");
    expect(body.error.user_message).toBe(body.error.message);
  });

  it("ENV-2: message is always English", async () => {
    const ru = await sim.submit({ type: "text" }, { headers: { "accept-language": "ru" } });
    expect(ru.json.error.message).toMatch(/^[\x20-\x7e]+$/);
    expect(ru.json.error.user_message).toBe(russian.submit_unavailable);
  });
});

describe("caching and rate headers", () => {
  it("W-13: every /v1 answer is private, no-store with Vary: Authorization, Cookie, Origin, errors included", async () => {
    for (const r of [await sim.get("/v1/me"), await sim.get("/v1/generations"), await sim.get("/v1/me", { key: null }), await sim.get("/v1/nowhere")]) {
      expect(r.headers.get("cache-control")).toBe("private, no-store");
      expect(r.headers.get("vary")).toBe("Authorization, Cookie, Origin");
    }
  });

  it("EP-3 LIM-2: the RateLimit pair is on every answer that reached the limiter, and not on 401 or api_disabled", async () => {
    const reached = [await sim.get("/v1/me"), await sim.get("/v1/generations/gen_missing"), await sim.get("/v1/me", { key: "ghk_demo_suspended" }), await sim.submit({ type: "video" })];
    for (const r of reached) {
      expect(r.headers.get("ratelimit")).toMatch(/^"(default|account)";r=\d+;t=\d+$/);
      expect(r.headers.get("ratelimit-policy")).toMatch(/^"(default|account)";q=\d+;w=\d+$/);
    }
    expect((await sim.get("/v1/me", { key: "ghk_demo_expired" })).headers.get("ratelimit")).toBeNull();
  });
});

describe("routes", () => {
  it("EP-1: an unknown route answers 404 not_found in the envelope, inside and outside /v1", async () => {
    for (const [method, path] of [["GET", "/v1/nowhere"], ["DELETE", "/v1/generations"], ["GET", "/"], ["POST", "/elsewhere/x?y=1"], ["PUT", "/v1/generations/gen_1"]]) {
      const r = await sim.call(method!, path!);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });

  it("EP-4: every operation of the contract has its handler in the hub (none is left to the dispatcher's 503 for an operation not built)", () => {
    expect(operations().length).toBeGreaterThan(0);
    expect(operations().filter((o) => !sim.hub.routes.handlers.has(o.operationId)).map((o) => o.operationId)).toEqual([]);
  });
});
