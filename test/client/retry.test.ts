// The transport beneath openapi-fetch: retries against fault-injecting servers.
import { describe, expect, it } from "vitest";
import { HubAbortError, HubApiError, HubConnectionError, HubHttpError, HubTimeoutError } from "../../src/client/index.ts";
import { answer, GEN_ID, record, refuse, serverPerTest } from "./support/server.ts";

const hubWith = serverPerTest({ backoffBase: 10, backoffMax: 40 });

const video = { type: "video" as const, model: "vendorA-video-1", prompt: "a cat" };

describe("retries", () => {
  it("LIM-4 ERR-3: a 429 with Retry-After is retried after the announced wait", async () => {
    let n = 0;
    const { hub, server } = await hubWith((req, res) =>
      n++ === 0
        ? refuse(res, "rate_limited", { details: [{ reason: "request_rate", scope: "default", limit: 60, current: 60 }], headers: { "Retry-After": "1" }, retryAfterSeconds: 1 })
        : answer(res, 200, record(GEN_ID, "RUNNING")),
    );
    const started = Date.now();
    const result = await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.data.status).toBe("RUNNING");
    expect(server.requests).toHaveLength(2);
  });

  it("LIM-4: a Retry-After beyond the cap is not waited for; the 429 is thrown with its wait", async () => {
    const { hub, server } = await hubWith(
      (req, res) => refuse(res, "rate_limited", { details: [{ reason: "request_rate" }], headers: { "Retry-After": "120" } }),
      { maxRetryAfter: 30 },
    );
    const started = Date.now();
    const error = await hub.GET("/v1/me").catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(HubApiError);
    expect((error as HubApiError).code).toBe("rate_limited");
    expect((error as HubApiError).retryAfter).toBe(120);
    expect(server.requests).toHaveLength(1);
  });

  it("SUB-0 SUB-2: a submit keeps one Idempotency-Key on every retry, and a new call gets a new key", async () => {
    const seen: string[] = [];
    let n = 0;
    const { hub } = await hubWith((req, res) => {
      seen.push(String(req.headers["idempotency-key"]));
      if (n++ % 3 < 2) return refuse(res, "internal_error");
      answer(res, 202, record(GEN_ID, "QUEUED"), { Location: `/v1/generations/${GEN_ID}` });
    });
    const first = await hub.submit(video);
    expect(first.status).toBe(202);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(1);
    expect(seen[0]).toBe(first.idempotencyKey);
    const second = await hub.submit(video);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
    expect(seen[3]).toBe(second.idempotencyKey);
  });

  it("SUB-0: a caller's Idempotency-Key is sent unchanged on every attempt", async () => {
    const seen: string[] = [];
    let n = 0;
    const { hub } = await hubWith((req, res) => {
      seen.push(String(req.headers["idempotency-key"]));
      if (n++ === 0) return void req; // no answer: the connection is dropped below
      answer(res, 202, record(GEN_ID, "QUEUED"), { Location: `/v1/generations/${GEN_ID}` });
    });
    // The first attempt gets no answer in time; the retry carries the same key.
    const result = await hub.submit(video, { idempotencyKey: "my-key-1", timeout: 300 });
    expect(result.idempotencyKey).toBe("my-key-1");
    expect(seen).toEqual(["my-key-1", "my-key-1"]);
  });

  it("a lost connection is retried for a replay-safe request", async () => {
    let n = 0;
    const { hub, server } = await hubWith((req, res) => {
      if (n++ === 0) return void res.socket?.destroy();
      answer(res, 200, record(GEN_ID, "DONE"));
    });
    const result = await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    expect(result.data.status).toBe("DONE");
    expect(server.requests).toHaveLength(2);
  });

  it("a lost connection is thrown as HubConnectionError once retries are spent", async () => {
    const { hub, server } = await hubWith((req, res) => void res.socket?.destroy(), { maxRetries: 2 });
    await expect(hub.GET("/v1/me")).rejects.toBeInstanceOf(HubConnectionError);
    expect(server.requests).toHaveLength(3);
  });

  it("a POST without an idempotency mechanism is not sent twice after a 5xx", async () => {
    const { hub, server } = await hubWith((req, res) => refuse(res, "internal_error"));
    const error = await hub
      .POST("/v1/generations/{id}/report", { params: { path: { id: GEN_ID } }, body: { text: "broken" } })
      .catch((e: unknown) => e);
    expect((error as HubApiError).code).toBe("internal_error");
    expect(server.requests).toHaveLength(1);
  });

  it("LIM-5: rate_limited for busy slots (concurrency) is not retried blindly", async () => {
    const { hub, server } = await hubWith((req, res) =>
      refuse(res, "rate_limited", { details: [{ reason: "concurrency", scope: "account", limit: 2, current: 2 }], headers: { "Retry-After": "1" } }),
    );
    const error = (await hub.submit(video).catch((e: unknown) => e)) as HubApiError;
    expect(error.code).toBe("rate_limited");
    expect(error.reason).toBe("concurrency");
    expect(server.requests).toHaveLength(1);
  });

  it("ERR-2: codes that retry cannot cure are not retried (api_disabled, submit_unavailable)", async () => {
    const { hub, server } = await hubWith((req, res) =>
      req.path === "/v1/me" ? refuse(res, "api_disabled") : refuse(res, "submit_unavailable"),
    );
    expect(((await hub.GET("/v1/me").catch((e: unknown) => e)) as HubApiError).code).toBe("api_disabled");
    expect(((await hub.submit({ type: "text" }).catch((e: unknown) => e)) as HubApiError).code).toBe("submit_unavailable");
    expect(server.requests).toHaveLength(2);
  });

  it("a 429 without Retry-After is retried with growing pauses", async () => {
    let n = 0;
    const { hub, server } = await hubWith((req, res) =>
      n++ < 2 ? refuse(res, "rate_limited", { details: [{ reason: "queue_full" }], headers: { "Retry-After": "0" } }) : answer(res, 200, record(GEN_ID, "DONE")),
    );
    await hub.GET("/v1/generations/{id}", { params: { path: { id: GEN_ID } } });
    expect(server.requests).toHaveLength(3);
  });

  it("no retry on user abort: one request, HubAbortError, and no retry after it", async () => {
    const { hub, server } = await hubWith(() => undefined /* never answers */);
    const controller = new AbortController();
    const pending = hub.GET("/v1/me", { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(HubAbortError);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.requests).toHaveLength(1);
  });

  it("an abort during the wait between attempts stops the retries", async () => {
    const { hub, server } = await hubWith((req, res) => refuse(res, "service_unavailable"), { backoffBase: 5_000, backoffMax: 5_000 });
    const controller = new AbortController();
    const pending = hub.GET("/v1/me", { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 150));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(HubAbortError);
    expect(server.requests).toHaveLength(1);
  });

  it("no answer within the timeout is HubTimeoutError after the configured retries", async () => {
    const { hub, server } = await hubWith(() => undefined, { timeout: 100, maxRetries: 1 });
    await expect(hub.GET("/v1/me")).rejects.toBeInstanceOf(HubTimeoutError);
    expect(server.requests).toHaveLength(2);
  });

  it("retry count and timeout can be set per call", async () => {
    const { hub, server } = await hubWith((req, res) => refuse(res, "internal_error"), { maxRetries: 5 });
    await expect(hub.GET("/v1/me", { maxRetries: 0 })).rejects.toBeInstanceOf(HubApiError);
    expect(server.requests).toHaveLength(1);
  });

  it("an answer that is not the envelope is a HubHttpError with its status", async () => {
    const { hub } = await hubWith((req, res) => void res.writeHead(502, { "Content-Type": "text/html" }).end("<h1>Bad gateway</h1>"), { maxRetries: 1 });
    const error = (await hub.GET("/v1/me").catch((e: unknown) => e)) as HubHttpError;
    expect(error).toBeInstanceOf(HubHttpError);
    expect(error).not.toBeInstanceOf(HubApiError);
    expect(error.status).toBe(502);
    expect(error.body).toContain("Bad gateway");
  });
});
