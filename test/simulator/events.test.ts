// GET /v1/events: frames, resume with Last-Event-ID, reset, terminated, heartbeats,
// the per-key stream limit and the types filter.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { streamLimits } from "../../src/contract/index.ts";
import { startSim, type EventStream, type Sim } from "./support/harness.ts";

let sim: Sim;
const open: EventStream[] = [];
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(() => {
  for (const s of open.splice(0)) s.drop();
  sim.hub.reset();
});
afterAll(async () => {
  for (const s of open.splice(0)) s.drop();
  await sim.close();
});

async function stream(options: Parameters<Sim["open"]>[0] = {}): Promise<EventStream> {
  const s = await sim.open(options);
  open.push(s);
  return s;
}

const image = { type: "image", model: "image-model-a", prompt: "a fox" };
const statuses = (s: EventStream, id?: string) => s.frames.filter((f) => f.event === "generation.status_changed" && (!id || f.data.id === id)).map((f) => f.data.status);

describe("frames", () => {
  it("EVT-4: a new stream opens at the current moment; earlier events are not replayed", async () => {
    await sim.submit(image);
    const s = await stream();
    const r = await sim.submit(image);
    await s.untilFrames(1);
    expect(s.frames[0]!.data.id).toBe(r.json.id);
    expect(s.frames).toHaveLength(1);
  });

  it("EVT-1 EVT-5: frames carry an id and the event object, never the full record", async () => {
    const s = await stream();
    await sim.submit(image);
    const [f] = await s.untilFrames(1);
    expect(f!.id).toBeTruthy();
    expect(Object.keys(f!.data).sort()).toEqual(["deleted", "id", "status", "type", "updated_at"]);
    expect(new Date(f!.data.updated_at).toISOString()).toBe(f!.data.updated_at);
  });

  it("EVT-11: cancellation is one FAILED event with deleted: true; the record then answers 404", async () => {
    const s = await stream();
    const r = await sim.submit(image);
    await sim.control("POST", `generations/${r.json.id}/cancel`);
    await s.untilFrames(2);
    expect(s.frames.map((f) => [f.data.status, f.data.deleted])).toEqual([["QUEUED", false], ["FAILED", true]]);
    expect((await sim.get(`/v1/generations/${r.json.id}`)).status).toBe(404);
    await sim.advance(60);
    expect(s.frames).toHaveLength(2);
  });

  it("EVT-11 ST-3: deleting a DONE generation is one event carrying the previous status", async () => {
    const r = await sim.submit(image);
    await sim.advance(60);
    const s = await stream();
    await sim.control("DELETE", `generations/${r.json.id}`);
    const [f] = await s.untilFrames(1);
    expect(f!.data).toMatchObject({ id: r.json.id, status: "DONE", deleted: true });
  });

  it("EVT-11 ST-4: a late result is a separate DONE event after FAILED; output_urls and refunded appear", async () => {
    const s = await stream();
    const r = await sim.submit({ ...image, prompt: "[sim:late]" });
    await sim.advance(3600);
    await s.until(() => statuses(s, r.json.id).length === 5);
    expect(statuses(s, r.json.id)).toEqual(["QUEUED", "PENDING", "RUNNING", "FAILED", "DONE"]);
    const rec = await sim.get(`/v1/generations/${r.json.id}`);
    expect(rec.json).toMatchObject({ status: "DONE", refunded: true });
    expect(rec.json.output_urls).toHaveLength(1);
    expect(rec.json.error).toBeUndefined();
  });

  it("EVT-10: the types filter passes only the listed types; an unknown type answers 400 invalid_request", async () => {
    const s = await stream({ query: "?types=video,model_3d" });
    await sim.submit(image);
    const v = await sim.submit({ type: "video", model: "video-model-a" });
    await s.untilFrames(1);
    expect(s.frames.map((f) => f.data.id)).toEqual([v.json.id]);
    const err = await sim.open({ query: "?types=video,hologram" }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.body.error).toMatchObject({ code: "invalid_request", details: [{ field: "types", reason: "not_allowed" }] });
  });
});

describe("resume", () => {
  it("EVT-9: a reconnect with Last-Event-ID continues right after it across a dropped connection, no loss, no repeat", async () => {
    const a = await stream();
    const first = await sim.submit(image);
    await sim.advance(1);
    await a.untilFrames(2);
    const seen = a.frames.slice(0, 2);
    a.drop();
    await a.until((x) => x.ended);
    // While nobody listens: more changes of the same and of a new generation.
    const second = await sim.submit({ type: "video", model: "video-model-a" });
    await sim.advance(30);
    const b = await stream({ lastEventId: seen[1]!.id });
    const third = await sim.submit(image);
    await b.until(() => b.frames.some((f) => f.data.id === third.json.id));
    const all = [...seen, ...b.frames];
    const ids = all.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(statuses({ frames: all } as EventStream, first.json.id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(statuses({ frames: all } as EventStream, second.json.id)).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(b.frames[0]!.event).toBe("generation.status_changed");
  });

  it("EVT-9: resuming from the newest id replays nothing", async () => {
    const a = await stream();
    await sim.submit(image);
    await a.untilFrames(1);
    a.drop();
    const b = await stream({ lastEventId: a.lastId });
    const r = await sim.submit(image);
    await b.untilFrames(1);
    expect(b.frames.map((f) => f.data.id)).toEqual([r.json.id]);
  });

  it("EVT-6: an unknown cursor gets a reset frame first (cursor_unknown), then the stream continues live", async () => {
    // Corrupt ones, and one well formed but never issued (beyond the newest event).
    const neverIssued = sim.hub.events.cursor("acc_demo", 999);
    for (const bad of ["garbage", "zz.0000000", "a.b.c", "%%%", neverIssued]) {
      const s = await stream({ lastEventId: bad });
      const [reset] = await s.untilFrames(1);
      expect(reset).toMatchObject({ event: "reset", data: { reason: "cursor_unknown", catch_up: "/v1/generations/status" } });
      expect(reset!.id).toBeTruthy();
      s.drop();
    }
    const s = await stream({ lastEventId: "garbage" });
    await s.untilFrames(1);
    const r = await sim.submit(image);
    await s.untilFrames(2);
    expect(s.frames[1]!.data.id).toBe(r.json.id);
    // The reset frame's id resumes at that moment.
    s.drop();
    const again = await stream({ lastEventId: s.frames[0]!.id });
    const r2 = await sim.submit(image);
    await again.untilFrames(2);
    expect(again.frames.map((f) => f.data.id)).toEqual([r.json.id, r2.json.id]);
  });

  it("EVT-6: another account's cursor is unknown to this stream", async () => {
    const other = await stream({ key: "ghk_demo_other" });
    await sim.submit(image, { key: "ghk_demo_other" });
    await other.untilFrames(1);
    const s = await stream({ lastEventId: other.lastId });
    const [reset] = await s.untilFrames(1);
    expect(reset!.data.reason).toBe("cursor_unknown");
  });

  it("EVT-12: history older than the retention window (7 days on the simulator's clock) answers cursor_expired", async () => {
    const a = await stream();
    await sim.submit(image);
    await a.untilFrames(1);
    a.drop();
    await sim.submit(image);
    await sim.advance(streamLimits().retentionDays * 86_400 + 60);
    await sim.submit(image);
    const s = await stream({ lastEventId: a.lastId });
    const [reset] = await s.untilFrames(1);
    expect(reset).toMatchObject({ event: "reset", data: { reason: "cursor_expired" } });
  });

  it("EVT-6: a cursor of a state before a reset is unknown", async () => {
    const a = await stream();
    await sim.submit(image);
    await a.untilFrames(1);
    await sim.control("POST", "reset");
    await a.until((x) => x.ended);
    const s = await stream({ lastEventId: a.lastId });
    expect((await s.untilFrames(1))[0]!.data.reason).toBe("cursor_unknown");
  });
});

describe("terminated", () => {
  const withdrawals: [string, () => Promise<unknown>, string][] = [
    ["key revoked", () => sim.control("POST", "keys/ghk_demo_second/revoke"), "api_key_revoked"],
    ["key expired", () => sim.control("POST", "keys/ghk_demo_second/expire"), "api_key_expired"],
    ["account suspended", () => sim.control("PATCH", "accounts/acc_demo", { suspended: true }), "account_suspended"],
    ["API access withdrawn", () => sim.control("PATCH", "accounts/acc_demo", { api_access: false }), "api_access_not_granted"],
    ["API disabled", () => sim.control("POST", "api", { enabled: false }), "api_disabled"],
    ["scope lost", () => sim.control("PATCH", "keys/ghk_demo_second", { scopes: ["me:read"] }), "insufficient_scope"],
  ];
  for (const [what, withdraw, code] of withdrawals) {
    it(`EVT-7: ${what} ends an open stream with a terminated frame (${code}); a reconnect gets the same refusal`, async () => {
      const s = await stream({ key: "ghk_demo_second", headers: { "x-request-id": "stream-1" } });
      await withdraw();
      await s.until((x) => x.ended);
      expect(s.frames).toHaveLength(1);
      expect(s.frames[0]).toMatchObject({ event: "terminated", data: { error: { code, request_id: "stream-1" } } });
      const again = await sim.open({ key: "ghk_demo_second" }).catch((e) => e);
      expect(again.body.error.code).toBe(code);
    });
  }

  it("EVT-7: a key that reaches its expiry on the clock ends its stream", async () => {
    const key = (await sim.control("POST", "keys", { expires_in_seconds: 10 })).json.secret;
    const s = await stream({ key });
    await sim.advance(11);
    await s.until((x) => x.ended);
    expect(s.frames[0]!.data.error.code).toBe("api_key_expired");
  });
});

describe("limits", () => {
  it("EVT-12: at most 10 open streams per key; the next answers 429 too_many_streams until one closes", async () => {
    const max = streamLimits().maxStreamsPerKey;
    const streams = await Promise.all(Array.from({ length: max }, () => stream({ key: "ghk_demo_second" })));
    const refused = await sim.open({ key: "ghk_demo_second" }).catch((e) => e);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("too_many_streams");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another key of the same account is not affected.
    await stream({ key: "ghk_demo_full" });
    streams[0]!.drop();
    await streams[0]!.until((x) => x.ended);
    await expect.poll(() => sim.hub.events.streamsOfKey("key_second")).toBe(max - 1);
    await stream({ key: "ghk_demo_second" });
  });

  it("EVT-8: heartbeat comments arrive on an idle stream (interval configurable)", async () => {
    const quick = await startSim({ heartbeatSeconds: 0.05 });
    try {
      const s = await quick.open();
      await s.until((x) => x.comments >= 2);
      expect(s.frames).toHaveLength(0);
      s.drop();
    } finally {
      await quick.close();
    }
  });

  it("EVT-8: the default heartbeat interval is the contract's 15 s", () => {
    expect(sim.hub.events.heartbeatMs).toBe(streamLimits().heartbeatSeconds * 1000);
  });
});
