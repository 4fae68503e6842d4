// Billing: the credit ledger agrees with every debit and refund the simulator made and
// adds up to the balance; it pages newest first. The live subscription is the record,
// null without one, or wrapped in `subscription` when the simulator is asked to.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OTHER, startSim, type Sim } from "./support/harness.ts";

let sim: Sim;
beforeAll(async () => {
  sim = await startSim({ rateLimits: { keyQuota: 100_000, accountQuota: 100_000, submitQuota: 100_000, concurrency: 100_000 } });
});
beforeEach(() => sim.hub.reset());
afterAll(() => sim.close());

type Row = { id: string; amount_cc: number; generation_id: string | null; reason: string | null; created_at: string };

async function ledger(key?: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const r = await sim.get(`/v1/billing/transactions?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    expect(r.status).toBe(200);
    rows.push(...r.json.data);
    cursor = r.json.next_cursor;
  } while (cursor);
  return rows;
}

const balance = async (key?: string) => (await sim.get("/v1/me", { key })).json.credits.main_cc as number;
const sum = (rows: Row[]) => rows.reduce((s, r) => s + r.amount_cc, 0);
const video = { type: "video", model: "video-model-a" };

describe("the credit ledger", () => {
  it("BILL-1 W-6: an account starts with one opening row (no link, reason null) equal to its balance; an account without credits has none", async () => {
    const rows = await ledger();
    expect(rows).toEqual([{ id: expect.any(String), amount_cc: 500_000, generation_id: null, reason: null, created_at: expect.any(String) }]);
    expect(await ledger("ghk_demo_broke")).toEqual([]);
  });

  it("BILL-1: the rows agree with every debit and refund: done, failed, late result, cancelled; free generations leave none; the sum is the balance", async () => {
    const done = (await sim.submit({ ...video, prompt: "ok" })).json;
    const failed = (await sim.submit({ ...video, prompt: "[sim:fail=timeout]" })).json;
    const late = (await sim.submit({ ...video, prompt: "[sim:late]" })).json;
    const cancelled = (await sim.submit({ ...video, prompt: "cancel me" })).json;
    const free = (await sim.submit({ type: "image", model: "image-model-a", prompt: "free" })).json;
    expect((await sim.control("POST", `generations/${cancelled.id}/cancel`)).status).toBe(200);
    await sim.advance(11); // 1 s queued, 1 s pending, 8 s running: done and failed have ended; late has failed and waits for its result
    expect((await sim.get(`/v1/generations/${late.id}`)).json.status).toBe("FAILED");
    await sim.advance(60); // the late result arrives
    const lateNow = (await sim.get(`/v1/generations/${late.id}`)).json;
    expect(lateNow).toMatchObject({ status: "DONE", refunded: true });

    const rows = await ledger();
    const of = (id: string) => rows.filter((r) => r.generation_id === id).map((r) => [r.amount_cc, r.reason]).sort();
    expect(done.cost_cc).toBe(500);
    expect(of(done.id)).toEqual([[-500, "generation"]]);
    expect(of(failed.id)).toEqual([[-500, "generation"], [500, "refund"]]);
    expect(of(late.id)).toEqual([[-500, "generation"], [500, "refund"]]);
    expect(of(cancelled.id)).toEqual([[-500, "generation"], [500, "refund"]]);
    expect(free.cost_cc).toBe(0);
    expect(of(free.id)).toEqual([]);
    for (const g of [done, failed, lateNow, cancelled]) {
      const record = g.id === cancelled.id ? { cost_cc: 0 } : (await sim.get(`/v1/generations/${g.id}`)).json;
      expect(sum(rows.filter((r) => r.generation_id === g.id)) + record.cost_cc, g.id).toBe(0);
    }
    expect(rows.every((r) => Number.isInteger(r.amount_cc) && (r.reason === null || ["generation", "refund"].includes(r.reason)))).toBe(true);
    expect(sum(rows)).toBe(await balance());
    // Another account's ledger holds only its own rows.
    expect((await ledger(OTHER)).map((r) => [r.amount_cc, r.generation_id])).toEqual([[500_000, null]]);
  });

  it("BILL-1 REP-5: a report moves no money and a moderation revocation refunds nothing; a balance set through the control interface is a row without reason", async () => {
    const g = (await sim.submit({ ...video, prompt: "x" })).json;
    await sim.advance(30);
    const before = await ledger();
    expect((await sim.post(`/v1/generations/${g.id}/report`, { text: "bad", reason: "moderation" })).status).toBe(201);
    expect(await ledger()).toEqual(before);
    await sim.control("PATCH", "accounts/acc_demo", { balance_cc: 1_000 });
    const rows = await ledger();
    expect(rows[0]).toMatchObject({ amount_cc: 1_000 - (500_000 - 500), generation_id: null, reason: null });
    expect(sum(rows)).toBe(1_000);
  });

  it("PAGE-4 PAGE-3: newest first by time then id; pages neither overlap nor lose anything; bad limit and cursor are refused", async () => {
    for (let i = 0; i < 9; i++) {
      await sim.submit({ ...video, prompt: `n${i} [sim:fail]` });
      if (i % 2 === 0) await sim.advance(1);
    }
    await sim.advance(30);
    const rows = await ledger();
    expect(rows).toHaveLength(1 + 18);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const order = rows.map((r) => `${r.created_at}|${r.id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(rows.at(-1)!.generation_id).toBeNull();
    expect((await sim.get("/v1/billing/transactions?limit=0")).json.error.code).toBe("invalid_limit");
    expect((await sim.get("/v1/billing/transactions?cursor=x.y")).json.error.code).toBe("invalid_cursor");
  });
});

describe("the live subscription", () => {
  it("BILL-2 BILL-3: the record with status, amounts in whole units of its currency, next_payment_at and cancelled_at", async () => {
    const r = await sim.get("/v1/billing/subscription");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "active", amount: 20, recurrent_amount: 20, currency: "USD", cancelled_at: null });
    expect(Date.parse(r.json.next_payment_at)).toBeGreaterThan(sim.hub.clock.now());
    const cancelled = (await sim.get("/v1/billing/subscription", { key: OTHER })).json;
    expect(cancelled).toMatchObject({ status: "cancelled", next_payment_at: null });
    expect(Date.parse(cancelled.cancelled_at)).toBeLessThan(sim.hub.clock.now());
  });

  it("W-7 BILL-3: an account without a subscription answers null with 200, not 404", async () => {
    const r = await sim.get("/v1/billing/subscription", { key: "ghk_demo_free" });
    expect(r.status).toBe(200);
    expect(r.text).toBe("null");
  });

  it("W-12: the record publishes no card, payment or provider field", async () => {
    const r = await sim.get("/v1/billing/subscription");
    expect(Object.keys(r.json).filter((k) => /card|payment_id|provider|token|checkout/.test(k))).toEqual([]);
  });

  it("BILL-2: the other form the seed allows: { subscription } holding the record or null (subscriptionForm: wrapped)", async () => {
    const wrapped = await startSim({ subscriptionForm: "wrapped" });
    try {
      const r = await wrapped.get("/v1/billing/subscription");
      expect(r.json.subscription).toMatchObject({ status: "active", currency: "USD" });
      expect((await wrapped.get("/v1/billing/subscription", { key: "ghk_demo_free" })).json).toEqual({ subscription: null });
    } finally {
      await wrapped.close();
    }
  });
});
