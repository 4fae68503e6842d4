// The event stream: resume, dead connections, reset catch-up, terminated, refusals.
import { afterEach, describe, expect, it } from "vitest";
import { createHubClient, HubApiError, HubStreamTerminatedError, type HubClient, type HubClientOptions, type HubEvent } from "../../src/client/index.ts";
import { answer, record, refuse, serve, type Handler, type TestServer } from "./support/server.ts";
import { EventLog, type StreamOptions } from "./support/stream.ts";

let server: TestServer | undefined;
let log: EventLog | undefined;
afterEach(async () => {
  const s = server;
  server = undefined;
  if (s) {
    await s.close();
    expect(s.violations).toEqual([]);
  }
  if (log) expect(log.violations).toEqual([]);
  log = undefined;
});

async function setup(options: { stream?: StreamOptions; handler?: Handler; client?: Partial<HubClientOptions> } = {}) {
  const events = (log = new EventLog());
  server = await serve(async (req, res, raw) => {
    if (options.handler) {
      await options.handler(req, res, raw);
      if (res.headersSent || res.writableEnded) return;
    }
    if (req.path === "/v1/events") return events.serve(req, res, options.stream);
    if (req.path === "/v1/generations/status") {
      const { ids } = JSON.parse(req.body) as { ids: string[] };
      return answer(res, 200, { data: ids.map((id) => record(id, "DONE")), next_cursor: null });
    }
    refuse(res, "not_found");
  });
  const hub = createHubClient({ baseUrl: server.url, apiKey: "hub_test_key", backoffBase: 5, backoffMax: 20, ...options.client });
  return { hub, log: events, server };
}

const gen = (i: number) => `gen_${String(i).padStart(24, "0")}`;

async function take(stream: AsyncIterable<HubEvent>, n: number, onEach?: (e: HubEvent) => void): Promise<HubEvent[]> {
  const got: HubEvent[] = [];
  for await (const e of stream) {
    got.push(e);
    onEach?.(e);
    if (got.length >= n) break;
  }
  return got;
}

async function until(check: () => boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("event stream", () => {
  it("EVT-9 EVT-5: resumes across forced disconnects with Last-Event-ID, losing and repeating nothing", async () => {
    const { hub, log, server } = await setup({ stream: { dropAfter: 4 } });
    const stream = hub.events({ reconnectDelay: 5 });
    const total = 30;
    const publisher = (async () => {
      // A loaded machine can take seconds to open the first connection: wait as long as the
      // test may run, and fail with the cause (Promise.all below) rather than hang.
      await until(() => log.connections > 0, 25_000);
      for (let i = 0; i < total; i++) {
        log.statusChanged(gen(i), i % 2 ? "RUNNING" : "QUEUED");
        await new Promise((r) => setTimeout(r, 3));
      }
    })();
    const [got] = await Promise.all([take(stream, total), publisher]);
    expect(got.map((e) => e.id)).toEqual(log.frames.map((f) => f.id));
    expect(new Set(got.map((e) => e.id)).size).toBe(total);
    expect(log.connections).toBeGreaterThanOrEqual(total / 4);
    // Every reconnect presented the id of the last frame delivered before it.
    const presented = server.requests.filter((r) => r.path === "/v1/events").map((r) => r.headers["last-event-id"]);
    expect(presented[0]).toBeUndefined();
    expect(presented.slice(1)).not.toHaveLength(0);
    for (const id of presented.slice(1)) expect(log.frames.some((f) => f.id === id)).toBe(true);
    expect(stream.lastEventId).toBe(log.frames.at(-1)!.id);
  });

  it("EVT-8: 45 s without a byte (configurable) is a dead connection: it is closed and reopened", async () => {
    let n = 0;
    const { hub, log } = await setup({
      handler: (req, res) => {
        // The first connection opens and then stays silent: no frame, no heartbeat.
        if (req.path === "/v1/events" && n++ === 0) {
          res.writeHead(200, { "Content-Type": "text/event-stream", "X-Request-Id": "r", "Cache-Control": "private, no-store", Vary: "Authorization, Cookie, Origin", RateLimit: '"default";r=1;t=1', "RateLimit-Policy": '"default";q=2;w=60' });
          res.flushHeaders();
        }
      },
    });
    const stream = hub.events({ idleTimeout: 300, reconnectDelay: 5 });
    const started = Date.now();
    const pending = take(stream, 1);
    await until(() => n >= 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    log.statusChanged(gen(1), "RUNNING");
    const [e] = await pending;
    expect(e!.event).toBe("generation.status_changed");
    expect(stream.connections).toBe(2);
  });

  it("EVT-8: heartbeats keep a quiet connection alive", async () => {
    const { hub, log } = await setup({ stream: { heartbeatMs: 50 } });
    const stream = hub.events({ idleTimeout: 200 });
    const pending = take(stream, 1);
    await until(() => log.connections > 0);
    await new Promise((r) => setTimeout(r, 700));
    log.statusChanged(gen(1), "RUNNING");
    await pending;
    expect(stream.connections).toBe(1);
  });

  it("EVT-6 EVT-2: on reset the new id is stored and tracked generations are caught up by the batch read before any later event", async () => {
    const { hub, log, server } = await setup();
    log.statusChanged(gen(0), "QUEUED");
    log.expired.add("c_stale");
    // A live event arrives right behind the reset, in the same write.
    const stream = hub.events({ lastEventId: "c_stale", track: [gen(1), gen(2)] });
    const pending = take(stream, 2);
    await until(() => log.connections > 0);
    log.statusChanged(gen(3), "RUNNING");
    const [first, second] = await pending;
    expect(first!.event).toBe("reset");
    if (first!.event !== "reset") throw new Error("unreachable");
    expect(first!.data).toEqual({ reason: "cursor_expired", catch_up: "/v1/generations/status" });
    expect(first!.records.map((r) => r.id)).toEqual([gen(1), gen(2)]);
    expect(second!.event).toBe("generation.status_changed");
    const order = server.requests.map((r) => r.path);
    expect(order).toEqual(["/v1/events", "/v1/generations/status"]);
    expect(JSON.parse(server.requests[1]!.body)).toEqual({ ids: [gen(1), gen(2)] });
    expect(stream.lastEventId).toBe(second!.id);
    // Caught-up generations that are final are no longer tracked; the live one in progress is.
    expect([...stream.tracked]).toEqual([gen(3)]);
  });

  it("EVT-6: a reset with nothing tracked yields the reset with no records and no batch read", async () => {
    const { hub, server } = await setup();
    const [e] = await take(hub.events({ lastEventId: "c_never_issued" }), 1);
    expect(e).toMatchObject({ event: "reset", data: { reason: "cursor_unknown" }, records: [] });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/events"]);
  });

  it("EVT-7: terminated throws the typed error and does not reconnect", async () => {
    const { hub, log } = await setup();
    const stream = hub.events({ reconnectDelay: 5 });
    const got: HubEvent[] = [];
    const done = (async () => {
      for await (const e of stream) got.push(e);
    })().catch((e: unknown) => e);
    await until(() => log.connections > 0);
    log.statusChanged(gen(1), "RUNNING");
    await until(() => got.length === 1);
    log.broadcast({ event: "terminated", id: log.nextId(), data: { error: { code: "api_key_revoked", message: "Key revoked.", user_message: "Key revoked.", request_id: "req_1" } } });
    const error = (await done) as HubStreamTerminatedError;
    expect(error).toBeInstanceOf(HubStreamTerminatedError);
    expect(error).toBeInstanceOf(HubApiError);
    expect(error.code).toBe("api_key_revoked");
    await new Promise((r) => setTimeout(r, 100));
    expect(log.connections).toBe(1);
  });

  it("EVT-12 AUTH-6: a 4xx other than 429 at opening is thrown, without reconnecting", async () => {
    const { hub, server } = await setup({ handler: (req, res) => (req.path === "/v1/events" ? refuse(res, "insufficient_scope") : undefined) });
    const error = await take(hub.events({ reconnectDelay: 5 }), 1).catch((e: unknown) => e);
    expect((error as HubApiError).code).toBe("insufficient_scope");
    expect(server.requests).toHaveLength(1);
  });

  it("EVT-12: 429 too_many_streams and 5xx at opening are retried after Retry-After or a backoff", async () => {
    let n = 0;
    const { hub, log, server } = await setup({
      handler: (req, res) => {
        if (req.path !== "/v1/events") return;
        if (n === 0) return void (n++, refuse(res, "too_many_streams", { headers: { "Retry-After": "0" } }));
        if (n === 1) return void (n++, refuse(res, "service_unavailable"));
      },
    });
    const stream = hub.events({ reconnectDelay: 5 });
    const pending = take(stream, 1);
    await until(() => log.connections > 0);
    log.statusChanged(gen(1), "RUNNING");
    await pending;
    expect(server.requests.filter((r) => r.path === "/v1/events")).toHaveLength(3);
  });

  it("AUTH-2: credentials are rebuilt on every reconnect", async () => {
    let issued = 0;
    const { hub, log, server } = await setup({ stream: { endAfter: 1 }, client: { apiKey: undefined, token: () => `tok_${++issued}` } });
    const stream = hub.events({ reconnectDelay: 5 });
    const pending = take(stream, 3);
    for (let i = 0; i < 3; i++) {
      await until(() => log.connections > i);
      log.statusChanged(gen(i), "RUNNING");
    }
    await pending;
    const auth = server.requests.filter((r) => r.path === "/v1/events").map((r) => r.headers.authorization);
    expect(auth.slice(0, 3)).toEqual(["Bearer tok_1", "Bearer tok_2", "Bearer tok_3"]);
  });

  it("EVT-10: types are sent comma-separated", async () => {
    const { hub, log, server } = await setup();
    const pending = take(hub.events({ types: ["video", "image"] }), 1);
    await until(() => log.connections > 0);
    log.statusChanged(gen(1), "RUNNING");
    await pending;
    expect(server.requests[0]!.url.searchParams.get("types")).toBe("video,image");
  });

  it("EVT-4: close() ends the iteration without an error and drops the connection", async () => {
    const { hub, log } = await setup();
    const stream = hub.events();
    const done = (async () => {
      const got: HubEvent[] = [];
      for await (const e of stream) got.push(e);
      return got;
    })();
    await until(() => log.connections > 0);
    stream.close();
    expect(await done).toEqual([]);
  });
});

export type { HubClient };
