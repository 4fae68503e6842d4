// Faults injected on purpose, through the Mock Service Worker handlers (msw/node): each
// kind as `fetch` meets it without a server (a network error for a dropped connection, a
// body that fails after its first bytes, a stream cut or silent), and the typed control
// methods, which reach the same control route as HTTP does.
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkAnswer, matchOperation } from "../../src/contract/index.ts";
import { ControlError, createHubHandlers, DEFAULT_BASE_URL, FaultError } from "../../src/simulator/msw/index.ts";
import { readBody, VIDEO } from "./support/faults.ts";

const BASE = DEFAULT_BASE_URL;
const { handlers, control } = createHubHandlers({ heartbeatSeconds: 1, demoData: false });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => control.reset());
afterAll(() => server.close());

const auth = { authorization: "Bearer ghk_demo_full" };
const call = (path: string, init: RequestInit = {}) => fetch(BASE + path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
const submit = (key: string) => call("/v1/generations", { method: "POST", headers: { "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify(VIDEO) });
const generations = async () => ((await (await call("/v1/generations")).json()) as { data: { id: string }[] }).data;

/** Every answer that arrives whole is held to the contract. */
async function conforming(method: string, path: string, res: Response): Promise<any> {
  const text = await res.text();
  expect(checkAnswer(matchOperation(method, path)!.operation, { status: res.status, headers: res.headers, body: text })).toEqual([]);
  return JSON.parse(text);
}

describe("fault kinds through Mock Service Worker", () => {
  it("service_unavailable and internal_error answer in the envelope with the request id and the RateLimit pair", async () => {
    await control.addFaults([
      { kind: "service_unavailable", route: "readAccount", count: 1 },
      { kind: "internal_error", route: "readAccount", count: 1 },
    ]);
    const first = await call("/v1/me", { headers: { "x-request-id": "req_msw_fault" } });
    expect(first.status).toBe(503);
    expect(first.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    expect((await conforming("GET", "/v1/me", first)).error).toMatchObject({ code: "service_unavailable", request_id: "req_msw_fault" });
    const second = await call("/v1/me");
    expect(second.status).toBe(500);
    expect((await conforming("GET", "/v1/me", second)).error.code).toBe("internal_error");
    expect((await call("/v1/me")).status).toBe(200);
  });

  it("LIM-4: rate_limited carries the fault's Retry-After and the limiter's details", async () => {
    await control.addFault({ kind: "rate_limited", route: "listModels", retry_after_seconds: 3, count: 1 });
    const r = await call("/v1/models");
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("3");
    expect(r.headers.get("ratelimit")).toBe('"default";r=0;t=3');
    expect((await conforming("GET", "/v1/models", r)).error).toMatchObject({ retry_after_seconds: 3, details: [{ reason: "request_rate", scope: "default" }] });
  });

  it("latency: the Response comes latency_ms later", async () => {
    await control.addFault({ kind: "latency", route: "readAccount", latency_ms: 300, count: 1 });
    const started = Date.now();
    expect((await call("/v1/me")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("drop: a network error (Response.error()); nothing is done", async () => {
    await control.addFault({ kind: "drop", route: "submitGeneration", count: 1 });
    await expect(submit("msw-drop-1")).rejects.toThrow(TypeError);
    expect(await generations()).toEqual([]);
  });

  it("SUB-2: drop after_processing: a network error, the generation made; the same Idempotency-Key answers it", async () => {
    await control.addFault({ kind: "drop", route: "submitGeneration", after_processing: true, count: 1 });
    await expect(submit("msw-drop-2")).rejects.toThrow(TypeError);
    const made = await generations();
    expect(made).toHaveLength(1);
    const replay = await submit("msw-drop-2");
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { id: string }).id).toBe(made[0]!.id);
    expect(await generations()).toHaveLength(1);
  });

  it("truncate: Content-Length of the whole body, sent_bytes of it, then the body fails", async () => {
    await control.addFault({ kind: "truncate", route: "readAccount", sent_bytes: 12, count: 1 });
    const res = await call("/v1/me");
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(12);
    expect(await readBody(res, 2000)).toMatchObject({ outcome: "failed", bytes: 12 });
  });

  it("EVT-9: stream_cut: after_frames frames arrive, then the stream fails as a lost connection", async () => {
    await control.addFault({ kind: "stream_cut", route: "streamGenerationEvents", after_frames: 3, count: 1 });
    const res = await call("/v1/events");
    await submit("msw-cut");
    await control.advance(60);
    expect(await readBody(res, 2000)).toMatchObject({ frames: 3, outcome: "failed" });
  });

  it("EVT-8: stream_silent: after after_frames frames no frame and no heartbeat, the stream open", async () => {
    await control.addFault({ kind: "stream_silent", route: "streamGenerationEvents", after_frames: 1, count: 1 });
    const aborter = new AbortController();
    const silent = await call("/v1/events", { signal: aborter.signal });
    const healthy = await call("/v1/events", { signal: aborter.signal });
    await submit("msw-silent");
    await control.advance(60);
    const [quiet, alive] = await Promise.all([readBody(silent, 2600), readBody(healthy, 2600)]);
    aborter.abort();
    expect(quiet).toMatchObject({ frames: 1, outcome: "open" });
    expect(quiet.text.slice(quiet.text.indexOf("event:"))).not.toContain("\n\n:");
    expect(alive.frames).toBe(4);
    expect(alive.comments).toBeGreaterThanOrEqual(1);
  });
});

describe("the control methods of faults", () => {
  it("faults, addFault(s), removeFault and clearFaults go through /_sim/faults; a reset takes the added ones out", async () => {
    const [a, b] = await control.addFaults([{ kind: "service_unavailable", route: "readAccount" }, { id: "models", kind: "drop", route: "listModels" }]);
    expect([a!.id, b!.id]).toEqual(["flt_1", "models"]);
    expect((await control.faults()).map((f) => [f.id, f.origin, f.remaining, f.fired])).toEqual([["flt_1", "control", null, 0], ["models", "control", null, 0]]);
    expect((await control.removeFault("models")).kind).toBe("drop");
    expect((await call("/v1/models")).status).toBe(200);
    expect(await control.clearFaults()).toBe(1);
    expect((await call("/v1/me")).status).toBe(200);
    await control.addFault({ kind: "service_unavailable" });
    await control.reset();
    expect(await control.faults()).toEqual([]);
  });

  it("an invalid fault rejects with ControlError 400 naming the field; an unknown id with 404", async () => {
    const error = (await control.addFault({ kind: "rate_limited", route: "revokeToken" } as never).catch((e: unknown) => e)) as ControlError;
    expect(error).toBeInstanceOf(ControlError);
    expect(error.status).toBe(400);
    expect((error.body as any).error.details).toEqual([expect.objectContaining({ field: "retry_after_seconds", reason: "required" })]);
    const listed = (await control.addFaults([{ kind: "drop" }, { kind: "latency", latency_ms: 0 }]).catch((e: unknown) => e)) as ControlError;
    expect((listed.body as any).error.details).toEqual([expect.objectContaining({ field: "faults.1.latency_ms", reason: "out_of_range" })]);
    expect(await control.faults()).toEqual([]);
    expect(((await control.removeFault("nope").catch((e: unknown) => e)) as ControlError).status).toBe(404);
  });

  it("createHubHandlers({ faults }) puts them in force, and throws FaultError for an invalid one", async () => {
    expect(() => createHubHandlers({ faults: [{ kind: "stream_cut", route: "readAccount" }] })).toThrow(FaultError);
    const other = createHubHandlers({ baseUrl: "https://faulty.example", faults: [{ kind: "service_unavailable", route: "readAccount", count: 1 }] });
    server.use(...other.handlers);
    const me = () => fetch("https://faulty.example/v1/me", { headers: auth });
    expect((await me()).status).toBe(503);
    expect((await me()).status).toBe(200);
    other.hub.shutdown();
  });
});
