// Retention: a simulator left running for days keeps the newest records of each account
// within documented limits (docs/simulator.md, "Decisions where the requirements are silent"), and
// what a client sees stays consistent: a dropped generation answers like any missing one,
// pages stay exact, the ledger keeps adding up to the balance, replays within the
// lifetime still replay, and a cursor before the kept history gets `reset`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/simulator/hub.ts";
import { readScenario } from "../../src/simulator/state/scenario/read.ts";
import { runCli, startCli } from "./support/cli.ts";
import { OTHER, startSim, type Sim } from "./support/harness.ts";
import { PNG, upload } from "./support/uploads.ts";

const image = { type: "image", model: "image-model-a" };
const video = { type: "video", model: "video-model-a" };
const unlimited = { keyQuota: 100_000, accountQuota: 100_000, submitQuota: 100_000, concurrency: 100 };

let sim: Sim;
afterEach(() => sim?.close());

/** Every page of a list, `limit` at a time. */
async function pages(path: string, limit: number, key?: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await sim.get(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    expect(r.status).toBe(200);
    all.push(...r.json.data);
    cursor = r.json.next_cursor;
  } while (cursor);
  return all;
}

const balance = async () => (await sim.get("/v1/me")).json.credits.main_cc as number;
const sum = (rows: { amount_cc: number }[]) => rows.reduce((s, r) => s + r.amount_cc, 0);

describe("generations", () => {
  it("W-8 PAGE-4: beyond the limit the oldest is dropped, and every route answers it as a missing one", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { generations: 3 } });
    const made: any[] = [];
    for (let i = 0; i < 5; i++) made.push((await sim.submit({ ...image, prompt: `picture ${i}` })).json);
    await sim.advance(10);
    const [dropped, alsoDropped, ...kept] = made;

    const listed = await pages("/v1/generations", 2);
    expect(listed.map((g) => g.id)).toEqual(kept.map((g) => g.id).reverse());
    expect((await sim.get("/v1/generations?limit=100")).json.data.map((g: any) => g.id)).toEqual(listed.map((g) => g.id));

    // Each route answers the dropped id exactly as an id that never existed.
    const unknown = "gen_01ZZZZZZZZZZZZZZZZZZZZZZZZ";
    const asMissing = async (call: (id: string) => Promise<{ status: number; json: any }>) => {
      const [a, b] = [await call(dropped.id), await call(unknown)];
      expect(a.status, JSON.stringify(a.json)).toBe(404);
      expect({ ...a.json.error, request_id: undefined }).toEqual({ ...b.json.error, request_id: undefined });
    };
    await asMissing((id) => sim.get(`/v1/generations/${id}`));
    await asMissing((id) => sim.call("PATCH", `/v1/generations/${id}`, { body: { title: "renamed" } }));
    await asMissing((id) => sim.get(`/v1/generations/${id}/outputs/image/0`));
    await asMissing((id) => sim.post(`/v1/generations/${id}/report`, { text: "wrong colours" }));
    await asMissing((id) => sim.control("GET", `generations/${id}`));
    await asMissing((id) => sim.control("POST", `generations/${id}/delete`));
    const batch = await sim.post("/v1/generations/status", { ids: [dropped.id, kept[0].id, alsoDropped.id] });
    expect(batch.json.data.map((g: any) => g.id)).toEqual([kept[0].id]);
    // Another account's records are its own: nothing of acc_demo's counts against it.
    expect((await sim.get("/v1/generations", { key: OTHER })).json.data).toEqual([]);

    // The ledger keeps the debit, without the link (old history); the export leaves the
    // dropped generation out and loads.
    const rows = await pages("/v1/billing/transactions", 100);
    expect(rows.filter((r) => r.generation_id === dropped.id)).toEqual([]);
    expect(sum(rows)).toBe(await balance());
    const file = (await sim.control("GET", "scenario")).json;
    expect(file.generations.map((g: any) => g.id)).toEqual(kept.map((g) => g.id));
    expect(() => readScenario(file)).not.toThrow();
  });

  it("a generation dropped while still in progress stops where it is and frees its slot", async () => {
    sim = await startSim({ rateLimits: { ...unlimited, concurrency: 2 }, retention: { generations: 2 } });
    const s = await sim.open();
    const slow = (await sim.submit({ ...image, prompt: "a long render [sim:slow]" })).json;
    await sim.submit({ ...image, prompt: "quick" });
    await sim.advance(10);
    expect((await sim.get("/v1/me")).json.limits.concurrency.in_use).toBe(1); // the slow one runs
    await sim.submit({ ...image, prompt: "quick again" }); // drops the slow one
    await sim.advance(400); // long after the slow one would have ended
    expect((await sim.get("/v1/me")).json.limits.concurrency.in_use).toBe(0);
    for (let i = 0; i < 2; i++) expect((await sim.submit({ ...image, prompt: "[sim:slow]" })).status).toBe(202);
    expect((await sim.get(`/v1/generations/${slow.id}`)).status).toBe(404);
    await s.until((x) => x.frames.filter((f) => f.data.status === "DONE").length >= 2);
    expect(s.frames.filter((f) => f.data.id === slow.id).map((f) => f.data.status)).toEqual(["QUEUED", "PENDING", "RUNNING"]);
    s.drop();
  });
});

describe("Idempotency-Key", () => {
  it("SUB-2: a replay within the key's lifetime replays; after it the key is new again", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { idempotencySeconds: 60 } });
    const body = { ...video, prompt: "a lighthouse" };
    const first = await sim.submit(body, { idempotencyKey: "daily-1" });
    const charged = await balance();
    await sim.advance(59);
    const replay = await sim.submit(body, { idempotencyKey: "daily-1" });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(first.json.id);
    expect(await balance()).toBe(charged);
    await sim.advance(2);
    const again = await sim.submit(body, { idempotencyKey: "daily-1" });
    expect(again.status).toBe(202);
    expect(again.json.id).not.toBe(first.json.id);
    expect(await balance()).toBe(charged - again.json.cost_cc);
  });

  it("SUB-2 SUB-3: a key goes with its dropped generation; a key whose generation is kept still replays and still conflicts", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { generations: 2 } });
    const body = { ...image, prompt: "a fox" };
    const first = (await sim.submit(body, { idempotencyKey: "k-1" })).json;
    const second = (await sim.submit(body, { idempotencyKey: "k-2" })).json;
    await sim.submit(body, { idempotencyKey: "k-3" }); // drops the first
    expect((await sim.submit(body, { idempotencyKey: "k-2" })).json.id).toBe(second.id);
    expect((await sim.submit({ ...body, prompt: "another" }, { idempotencyKey: "k-2" })).json.error.code).toBe("duplicate_key_conflict");
    const renewed = await sim.submit(body, { idempotencyKey: "k-1" });
    expect(renewed.status).toBe(202);
    expect(renewed.json.id).not.toBe(first.id);
  });
});

describe("the credit ledger", () => {
  it("BILL-1 PAGE-4: beyond the row limit the oldest rows fold into one opening row; the rows add up to the balance and pages stay exact", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { ledgerRows: 4 } });
    const start = await balance();
    for (let i = 0; i < 3; i++) await sim.submit({ ...video, prompt: `ok ${i}` });
    for (let i = 0; i < 2; i++) await sim.submit({ ...video, prompt: `[sim:fail] ${i}` });
    await sim.advance(20); // the failures are refunded: two more rows
    expect(await balance()).toBe(start - 3 * 500);

    const rows = await pages("/v1/billing/transactions", 1);
    expect(rows).toHaveLength(4);
    expect(await pages("/v1/billing/transactions", 100)).toEqual(rows);
    expect(sum(rows)).toBe(await balance());
    const opening = rows.at(-1);
    expect(opening).toMatchObject({ generation_id: null, reason: null });
    // The opening row holds everything before the three rows kept.
    expect(opening.amount_cc).toBe(await balance() - sum(rows.slice(0, 3)));

    // A balance set through the control interface leaves a row, folded in its turn.
    await sim.control("PATCH", "accounts/acc_demo", { balance_cc: 1234 });
    const after = await pages("/v1/billing/transactions", 3);
    expect(after).toHaveLength(4);
    expect(sum(after)).toBe(1234);
    const file = (await sim.control("GET", "scenario")).json;
    expect(() => readScenario(file)).not.toThrow();
  });
});

describe("the event history", () => {
  it("EVT-12 EVT-6 EVT-9: beyond the event limit a Last-Event-ID before the kept history answers reset (cursor_expired); one within it resumes", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { events: 6 } });
    const a = await sim.open();
    await sim.submit({ ...image, prompt: "first" });
    await a.untilFrames(1);
    const early = a.lastId!;
    await sim.advance(10); // QUEUED, PENDING, RUNNING, DONE: four events
    await a.untilFrames(4);
    const recent = a.lastId!;
    a.drop();
    await sim.submit({ ...image, prompt: "second" });
    await sim.advance(10); // four more: eight in all, six kept

    const expired = await sim.open({ lastEventId: early });
    expect((await expired.untilFrames(1))[0]).toMatchObject({ event: "reset", data: { reason: "cursor_expired" } });
    expired.drop();
    const resumed = await sim.open({ lastEventId: recent });
    const frames = await resumed.untilFrames(4);
    expect(frames.map((f) => [f.event, f.data.status])).toEqual([
      ["generation.status_changed", "QUEUED"],
      ["generation.status_changed", "PENDING"],
      ["generation.status_changed", "RUNNING"],
      ["generation.status_changed", "DONE"],
    ]);
    resumed.drop();
  });
});

describe("the support thread", () => {
  it("SUP-3 REP-4: the newest messages and reports are kept; a dropped message's client_msg_id is new again", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { supportMessages: 3 } });
    const ids = ["0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a60", "0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a61", "0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a62"];
    for (const [i, id] of ids.entries()) {
      expect((await sim.post("/v1/support/messages", { text: `message ${i}`, client_msg_id: id })).status).toBe(201);
      await sim.advance(1);
    }
    const gen = (await sim.submit({ ...video, prompt: "ok" })).json;
    await sim.advance(20);
    const report = await sim.post(`/v1/generations/${gen.id}/report`, { text: "wrong colours", client_msg_id: "0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a63" });
    expect(report.status).toBe(201);
    const thread = (await sim.get("/v1/support/messages")).json.data;
    expect(thread.map((m: any) => m.text)).toEqual(["message 1", "message 2", "wrong colours"]);
    // The report still replays; the dropped message's id sends a new message.
    const replay = await sim.post(`/v1/generations/${gen.id}/report`, { text: "wrong colours", client_msg_id: "0b7a4f0e-55f3-4a6f-9a8e-3c1f2d4b5a63" });
    expect(replay.json).toEqual(report.json);
    const resent = await sim.post("/v1/support/messages", { text: "another text", client_msg_id: ids[0] });
    expect(resent.status).toBe(201);
    expect(resent.json.text).toBe("another text");
  });
});

describe("the library", () => {
  it("an expired asset and its ticket are forgotten by the next sweep; a ticket never written a day after its signature expired", async () => {
    sim = await startSim({ rateLimits: unlimited, uploadLifetimeDays: 1 });
    await upload(sim, PNG);
    const unwritten = await sim.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: 100 });
    expect(unwritten.status).toBe(200);
    const library = sim.hub.state.library;
    expect([library.assets.size, library.tickets.size]).toEqual([1, 2]);
    await sim.advance(2 * 86_400);
    expect((await sim.get("/v1/library/assets")).json.data).toEqual([]);
    await sim.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: 100 }); // the sweep runs on a new ticket
    expect([library.assets.size, library.tickets.size]).toEqual([0, 1]);
  });
});

describe("uploaded files", () => {
  it("LIB-1: beyond the limit the oldest file is forgotten with its ticket: 404 on its read, gone from the list, its reference no longer found", async () => {
    sim = await startSim({ rateLimits: unlimited, retention: { assets: 2 }, demoData: false });
    const library = sim.hub.state.library;
    const first = await upload(sim, PNG);
    const firstAsset = [...library.assets.values()].find((a) => a.reference === first)!;
    expect(firstAsset).toBeDefined();
    const kept = [await upload(sim, PNG), await upload(sim, PNG)];
    expect((await sim.get(`/v1/library/assets/${firstAsset.id}`)).status).toBe(404);
    const listed = (await sim.get("/v1/library/assets")).json.data as { id: string }[];
    expect(listed.map((a) => library.assets.get(a.id)?.reference).sort()).toEqual([...kept].sort());
    expect([library.assets.size, library.tickets.has(first), kept.every((r) => library.tickets.has(r))]).toEqual([2, false, true]);
    // The bytes go too: nothing of the account holds more than the limit.
    expect(library.by_account.get("acc_demo")!.size).toBe(2);
  });
});

describe("settings", () => {
  it("a limit below 1 is refused when the hub is made", () => {
    expect(() => new Hub({ retention: { generations: 0 } })).toThrow(/retention.generations must be a whole number of at least 1/);
  });

  it("npm start: the flags and their environment variables set the limits; a limit that is not a whole number of at least 1 is one line", async () => {
    // A docs folder that is up to date: npm start then builds nothing.
    const docs = mkdtempSync(join(tmpdir(), "sim-docs-"));
    writeFileSync(join(docs, "index.html"), "<!doctype html>");
    const cli = await startCli(["--port", "0", "--clock-speed", "0", "--no-demo-data", "--retain-generations", "2"], { SIM_IDEMPOTENCY_SECONDS: "30", SIM_DOCS_DIR: docs });
    try {
      const submit = (key: string) => fetch(`${cli.url}/v1/generations`, {
        method: "POST",
        headers: { authorization: "Bearer ghk_demo_full", "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ ...image, prompt: "a fox" }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const first = await submit("a");
      await submit("b");
      await submit("c");
      expect((await fetch(`${cli.url}/v1/generations/${first.id}`, { headers: { authorization: "Bearer ghk_demo_full" } })).status).toBe(404);
      const second = await submit("b");
      await fetch(`${cli.url}/_sim/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seconds: 31 }) });
      expect((await submit("b")).id).not.toBe(second.id);
    } finally {
      await cli.stop();
    }
    const refused = await runCli(["--retain-events", "1.5"]);
    expect(refused.code).toBe(2);
    expect(refused.out).toContain("--retain-events (SIM_RETAIN_EVENTS) must be a whole number of at least 1, got \"1.5\"");
  });
});
