// The typed client against a simulator that misbehaves on purpose: the same cases run
// against the real server (faults.test.ts) and through Mock Service Worker
// (faults-msw.test.ts). Each case puts a fault in force through the simulator's control
// interface and holds the client's retry or resume code to what it must do.
import { expect, it } from "vitest";
import { attemptsOf, HubConnectionError, type HubClient, type HubClientOptions, type HubEvent } from "../../../src/client/index.ts";
import type { FaultSpec, FaultView } from "../../../src/simulator/index.ts";

export interface FaultRig {
  /** A client of `ghk_demo_full` whose answers are recorded (and held to the contract). */
  client(options?: Partial<HubClientOptions>): HubClient;
  addFault(fault: FaultSpec): Promise<unknown>;
  faults(): Promise<FaultView[]>;
  /** `METHOD /path status` of every answer the client received (a dropped request has none). */
  answers(): string[];
}

const VIDEO = { type: "video" as const, model: "video-model-a", prompt: "a lighthouse at dusk" };

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Reads a stream in the background until every one of `ids()` is DONE. */
function follow(client: HubClient, options: Parameters<HubClient["events"]>[0], ids: () => string[]) {
  const seen: HubEvent[] = [];
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const stream = client.events({ reconnectDelay: 10, ...options, onOpen: () => opened() });
  const statuses = new Map<string, string[]>();
  const done = (async () => {
    for await (const e of stream) {
      seen.push(e);
      if (e.event !== "generation.status_changed") continue;
      statuses.set(e.data.id, [...(statuses.get(e.data.id) ?? []), e.data.status]);
      const wanted = ids();
      if (wanted.length > 0 && wanted.every((id) => statuses.get(id)?.at(-1) === "DONE")) return stream.close();
    }
  })();
  return { stream, seen, statuses, open, done };
}

/** Registers the cases; `rig()` is the current test's rig. */
export function faultCases(rig: () => FaultRig): void {
  it("ERR-2: 503 service_unavailable and 500 internal_error are retried, and the call succeeds", async () => {
    const r = rig();
    await r.addFault({ kind: "service_unavailable", route: "readAccount", count: 1 });
    await r.addFault({ kind: "internal_error", route: "readAccount", count: 1 });
    const me = await r.client().GET("/v1/me");
    expect(me.status).toBe(200);
    expect(attemptsOf(me.response)).toBe(3);
    expect(r.answers()).toEqual(["GET /v1/me 503", "GET /v1/me 500", "GET /v1/me 200"]);
  });

  it("LIM-4: a 429 rate_limited is retried after its Retry-After, not after the (shorter) backoff", async () => {
    const r = rig();
    await r.addFault({ kind: "rate_limited", route: "readAccount", retry_after_seconds: 1, count: 1 });
    const started = Date.now();
    const me = await r.client({ backoffBase: 5, backoffMax: 10 }).GET("/v1/me");
    expect(me.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(r.answers()).toEqual(["GET /v1/me 429", "GET /v1/me 200"]);
  });

  it("a dropped connection on a replay-safe request is retried; a POST that is not replay-safe is not sent twice", async () => {
    const r = rig();
    const client = r.client();
    await r.addFault({ kind: "drop", route: "readAccount", count: 1 });
    const me = await client.GET("/v1/me");
    expect(attemptsOf(me.response)).toBe(2);
    expect(r.answers()).toEqual(["GET /v1/me 200"]);
    const { data } = await client.submit(VIDEO);
    await r.addFault({ kind: "drop", route: "reportGeneration", count: 1 });
    const report = await client.POST("/v1/generations/{id}/report", { params: { path: { id: data.id } }, body: { text: "broken" } }).catch((e: unknown) => e);
    expect(report).toBeInstanceOf(HubConnectionError);
    expect((await r.faults()).find((f) => f.route === "reportGeneration")?.fired).toBe(1);
    expect(r.answers().filter((a) => a.startsWith("POST /v1/generations/") && a.includes("/report"))).toEqual([]);
  });

  it("SUB-0 SUB-2: a submit whose 202 is lost after processing is retried with the same Idempotency-Key and answered as a replay: one generation, one charge", async () => {
    const r = rig();
    const client = r.client();
    await r.addFault({ kind: "drop", route: "submitGeneration", after_processing: true, count: 1 });
    const ids = async () => (await client.GET("/v1/generations", { params: { query: { limit: 100 } } })).data.data.map((g) => g.id);
    const balance = async () => (await client.GET("/v1/me")).data.credits.main_cc;
    const [idsBefore, balanceBefore] = [await ids(), await balance()];
    const submitted = await client.submit(VIDEO);
    expect(submitted.status).toBe(202);
    expect(attemptsOf(submitted.response)).toBe(2);
    expect(r.answers().filter((a) => a.startsWith("POST /v1/generations "))).toEqual(["POST /v1/generations 202"]);
    expect((await ids()).filter((id) => !idsBefore.includes(id))).toEqual([submitted.data.id]);
    const rows = (await client.GET("/v1/billing/transactions")).data.data.filter((row) => row.generation_id === submitted.data.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.amount_cc).toBeLessThan(0);
    expect(await balance()).toBe(balanceBefore + rows[0]!.amount_cc);
  });

  it("a truncated answer to a replay-safe request is retried as a lost connection", async () => {
    const r = rig();
    await r.addFault({ kind: "truncate", route: "listModels", count: 1 });
    const models = await r.client().GET("/v1/models");
    expect(models.data?.data.length).toBeGreaterThan(0);
    expect(attemptsOf(models.response)).toBe(2);
  });

  it("EVT-9 EVT-11: events() resumes after each cut with Last-Event-ID: no frame lost or repeated", async () => {
    const r = rig();
    const client = r.client();
    await r.addFault({ kind: "stream_cut", route: "streamGenerationEvents", after_frames: 2, count: 3 });
    const ids: string[] = [];
    const f = follow(client, {}, () => (ids.length === 3 ? ids : []));
    await f.open;
    for (let i = 0; i < 3; i++) ids.push((await client.submit({ ...VIDEO, prompt: `clip ${i}` })).data.id);
    await f.done;
    expect((await r.faults())[0]!.fired).toBe(3);
    expect(f.stream.connections).toBe(4);
    expect(new Set(f.seen.map((e) => e.id)).size).toBe(f.seen.length);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(f.statuses.get(id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
  });

  it("EVT-8: the heartbeat watchdog reopens a stream gone silent and resumes it where it stopped", async () => {
    const r = rig();
    const client = r.client();
    await r.addFault({ kind: "stream_silent", route: "streamGenerationEvents", after_frames: 1, count: 1 });
    const ids: string[] = [];
    // Heartbeats every second (the simulator's heartbeatSeconds): silence for 2.5 s is a dead connection.
    const f = follow(client, { idleTimeout: 2_500 }, () => ids);
    await f.open;
    const started = Date.now();
    ids.push((await client.submit(VIDEO)).data.id);
    await until(() => f.statuses.get(ids[0]!)?.length === 1, 5_000);
    await f.done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
    expect(f.stream.connections).toBe(2);
    expect(f.statuses.get(ids[0]!)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
  });
}
