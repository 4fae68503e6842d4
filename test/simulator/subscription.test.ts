// The four session-only subscription actions: their replies, every refusal the contract
// assigns them (each reachable from a demo state or the control interface), and the one
// subscription record both the actions and GET /v1/billing/subscription use.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkAnswer, operationById } from "../../src/contract/index.ts";
import { startSim, type CallOptions, type Sim } from "./support/harness.ts";
import { signIn, tokensFor } from "./support/site.ts";

let sim: Sim;
let cookie: string;
beforeAll(async () => {
  sim = await startSim();
});
beforeEach(async () => {
  sim.hub.reset();
  cookie = await signIn(sim);
});
afterAll(() => sim.close());

const session = (c = cookie): CallOptions => ({ key: null, headers: { cookie: c, origin: sim.url } });
const act = (action: string, body?: unknown, c?: string) => sim.post(`/v1/subscription/${action}`, body, session(c));
const billing = async (c = cookie) => (await sim.get("/v1/billing/subscription", { key: null, headers: { cookie: c } })).json;
const setState = async (body: Record<string, unknown>, account = "acc_demo") => {
  const r = await sim.control("PATCH", `subscriptions/${account}`, body);
  expect(r.status, r.text).toBe(200);
  return r.json;
};

describe("replies", () => {
  it("SUBS-2 SUBS-1 BILL-2: cancel answers plan_ends_at and superseded, resume answers next_pay_date; the billing read follows both", async () => {
    const live = await billing();
    expect(live).toMatchObject({ status: "active", cancelled_at: null, currency: "USD" });
    const cancelled = await act("cancel", { reason: "too_expensive", reason_text: "Only needed it for one project." });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({ plan_ends_at: live.current_period_end, superseded: false });
    const after = await billing();
    expect(after).toMatchObject({ status: "cancelled", next_payment_at: null });
    expect(after.cancelled_at).toBe(new Date(sim.hub.clock.now()).toISOString());
    expect((await sim.control("GET", "subscriptions/acc_demo")).json.cancel_reason).toEqual({ reason: "too_expensive", reason_text: "Only needed it for one project." });
    // Cancelling again changes nothing and answers the same.
    expect((await act("cancel")).json).toEqual(cancelled.json);
    const resumed = await act("resume");
    expect(resumed.status).toBe(200);
    expect(resumed.json).toEqual({ next_pay_date: live.current_period_end.slice(0, 10) });
    expect(await billing()).toMatchObject({ status: "active", cancelled_at: null, next_payment_at: live.current_period_end });
  });

  it("SUBS-2: cancel answers superseded when a newer subscription already renews the plan", async () => {
    await setState({ superseded: true });
    expect((await act("cancel")).json.superseded).toBe(true);
  });

  it("SUBS-3 SUBS-4 W-12: a card change answers payment_id with widget parameters; its completion answers card, next_pay_date, resumed, charge, and a repeat answers the same", async () => {
    const started = await act("card-change");
    expect(started.status).toBe(200);
    expect(started.json.payment_id).toMatch(/^pay_/);
    expect(started.json.widget).toMatchObject({ kind: "card_check", currency: "USD" });
    const done = await act("card-change/complete", { payment_id: started.json.payment_id, transaction_id: "txn_widget_1" });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ card: { brand: "mastercard", last4: "5454" }, next_pay_date: (await billing()).current_period_end.slice(0, 10), resumed: false, charge: null });
    // No card number, no provider identifier.
    expect(JSON.stringify(done.json)).not.toMatch(/\d{12,}/);
    expect((await act("card-change/complete", { payment_id: started.json.payment_id })).json).toEqual(done.json);
  });

  it("SUBS-4: completing a card change of a past-due subscription pays the overdue period and resumes it; of a cancelled one, turns renewal back on", async () => {
    await setState({ status: "past_due" });
    expect((await billing()).status).toBe("past_due");
    const paid = await act("card-change/complete", { payment_id: (await act("card-change")).json.payment_id });
    expect(paid.json).toMatchObject({ resumed: true, charge: { status: "paid", amount: 20, currency: "USD" } });
    expect((await billing()).status).toBe("active");
    await act("cancel");
    const resumed = await act("card-change/complete", { payment_id: (await act("card-change")).json.payment_id });
    expect(resumed.json).toMatchObject({ resumed: true, charge: null });
    expect((await billing()).status).toBe("active");
  });

  it("BILL-2 W-7: a cancelled subscription ends with its paid period: the billing read answers null and the account has no paid plan", async () => {
    await act("cancel");
    await sim.advance(13 * 86_400);
    // The session lasted 7 days: sign in again.
    const fresh = await signIn(sim);
    expect(await billing(fresh)).toBeNull();
    expect((await sim.get("/v1/me", { key: null, headers: { cookie: fresh } })).json.plan.paid).toBe(false);
    expect((await act("resume", undefined, fresh)).json.error.code).toBe("plan_expired");
  });

  it("BILL-2 W-7: a subscription the scenario starts cancelled ends with its paid period too (the demo's second account: 9 days left)", async () => {
    const other = await signIn(sim, "acc_other");
    expect(await billing(other)).toMatchObject({ status: "cancelled" });
    await sim.advance(8 * 86_400);
    expect(await billing(await signIn(sim, "acc_other"))).toMatchObject({ status: "cancelled" });
    await sim.advance(2 * 86_400);
    const fresh = await signIn(sim, "acc_other");
    expect(await billing(fresh)).toBeNull();
    expect((await sim.get("/v1/me", { key: null, headers: { cookie: fresh } })).json.plan.paid).toBe(false);
    expect((await act("resume", undefined, fresh)).json.error.code).toBe("plan_expired");
  });
});

describe("refusals", () => {
  // [action, body, state set through the control interface (or an account), status, code]
  const cases: [string, unknown, Record<string, unknown> | string, number, string][] = [
    ["resume", undefined, "acc_free", 400, "no_active_plan"],
    ["resume", undefined, {}, 400, "renewal_already_on"],
    ["resume", undefined, { status: "cancelled", checkout_open: true }, 409, "checkout_in_progress"],
    ["resume", undefined, { status: "cancelled", linked: false }, 409, "subscription_not_linked"],
    ["resume", undefined, { status: "cancelled", superseded: true }, 409, "subscription_superseded"],
    ["resume", undefined, { status: "cancelled", card: null }, 409, "card_token_missing"],
    ["resume", undefined, { status: "cancelled", fail_next: "subscription_recancelled" }, 409, "subscription_recancelled"],
    ["resume", undefined, { status: "cancelled", fail_next: "subscription_resume_failed" }, 502, "subscription_resume_failed"],
    ["cancel", undefined, "acc_free", 400, "no_active_plan"],
    ["cancel", undefined, { checkout_open: true }, 409, "checkout_in_progress"],
    ["cancel", undefined, { linked: false }, 409, "subscription_not_linked"],
    ["cancel", undefined, { fail_next: "subscription_cancel_failed" }, 502, "subscription_cancel_failed"],
    ["cancel", undefined, { fail_next: "subscription_cancel_unsaved" }, 500, "subscription_cancel_unsaved"],
    ["cancel", { reason: 5 }, {}, 400, "invalid_request"],
    ["card-change", undefined, "acc_free", 400, "no_active_plan"],
    ["card-change", undefined, { checkout_open: true }, 409, "checkout_in_progress"],
    ["card-change", undefined, { linked: false }, 409, "subscription_not_linked"],
    ["card-change", undefined, { card_change_available: false }, 409, "card_change_unavailable"],
    ["card-change/complete", { payment_id: "pay_never_started" }, {}, 409, "card_check_not_authorized"],
    ["card-change/complete", "started", { fail_next: "card_check_not_authorized" }, 409, "card_check_not_authorized"],
    ["card-change/complete", "started", { fail_next: "card_change_in_progress" }, 409, "card_change_in_progress"],
    ["card-change/complete", "started", { fail_next: "card_change_failed" }, 502, "card_change_failed"],
  ];
  for (const [action, body, state, status, code] of cases) {
    it(`ERR-2: ${action} answers ${status} ${code} (${typeof state === "string" ? state : JSON.stringify(state)}${body && body !== "started" ? `, body ${JSON.stringify(body)}` : ""})`, async () => {
      const c = typeof state === "string" ? await signIn(sim, state) : cookie;
      const payload = body === "started" ? { payment_id: (await act("card-change")).json.payment_id } : body;
      if (typeof state !== "string") await setState(state);
      const before = JSON.stringify(await billing(c));
      const r = await act(action, payload, c);
      expect(r.status).toBe(status);
      expect(r.json.error.code).toBe(code);
      // A refusal changes nothing; an injected one is used once.
      expect(JSON.stringify(await billing(c))).toBe(before);
      if (typeof state !== "string" && state.fail_next) expect((await sim.control("GET", "subscriptions/acc_demo")).json.fail_next).toEqual([]);
    });
  }

  it("W-8 ERR-2: another account's payment_id answers exactly like one never started", async () => {
    const other = await signIn(sim, "acc_other");
    const theirs = (await act("card-change", undefined, other)).json.payment_id;
    const foreign = await act("card-change/complete", { payment_id: theirs });
    const unknown = await act("card-change/complete", { payment_id: "pay_never_started" });
    expect([foreign.status, foreign.json.error.code, foreign.json.error.message]).toEqual([unknown.status, unknown.json.error.code, unknown.json.error.message]);
    // Their card change is untouched and still completes for them.
    expect((await act("card-change/complete", { payment_id: theirs }, other)).status).toBe(200);
  });

  it("ERR-2: plan_expired once the paid period of a cancelled subscription has ended (control: period_end_in_days)", async () => {
    await act("cancel");
    await setState({ period_end_in_days: 0 });
    expect((await act("resume")).json.error.code).toBe("plan_expired");
  });

  it("SUBS-4: a completion without payment_id answers 400 invalid_request", async () => {
    const res = await fetch(`${sim.url}/v1/subscription/card-change/complete`, { method: "POST", headers: { cookie, origin: sim.url, "content-type": "application/json" }, body: "{}" });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text).error).toMatchObject({ code: "invalid_request", details: [{ field: "payment_id", reason: "required" }] });
    expect(checkAnswer(operationById("completeCardChange"), { status: res.status, headers: res.headers, body: text })).toEqual([]);
  });

  it("W-11 AUTH-6: API keys and OAuth tokens get 403 insufficient_scope on every action, even with billing:read", async () => {
    const { reply } = await tokensFor(sim, { scope: "billing:read me:read" });
    for (const action of ["resume", "cancel", "card-change", "card-change/complete"]) {
      for (const key of ["ghk_demo_full", reply.access_token as string]) {
        const r = await sim.post(`/v1/subscription/${action}`, action.endsWith("complete") ? { payment_id: "pay_x" } : undefined, { key });
        expect(r.status, `${action} ${key}`).toBe(403);
        expect(r.json.error.code).toBe("insufficient_scope");
      }
    }
    // The token can read the subscription: billing:read is enough for the read, never for the actions.
    expect((await sim.get("/v1/billing/subscription", { key: reply.access_token })).status).toBe(200);
  });

  it("W-11: the control interface validates what it is given", async () => {
    for (const body of [{ status: "paused" }, { fail_next: "not_a_code" }, { linked: "yes" }, { card: "visa" }]) {
      const r = await sim.control("PATCH", "subscriptions/acc_demo", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.code).toBe("invalid_request");
    }
    expect((await sim.control("GET", "subscriptions/acc_nobody")).status).toBe(404);
    // A subscription can be given to an account without one, and taken away.
    const free = await signIn(sim, "acc_free");
    await setState({ status: "active" }, "acc_free");
    expect((await billing(free)).status).toBe("active");
    await setState({ subscription: null }, "acc_free");
    expect(await billing(free)).toBeNull();
  });
});
