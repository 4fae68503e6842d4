// One accepted submit and what only a sequence around it shows (`--allow-spend`: one
// generation of a body the server priced, the cheapest of a second type where there is one):
// - its charge is within the estimate of the same body (`price_cc` is a ceiling);
// - the lists of generations and of the ledger, paged across it, stay exact;
// - an exact replay spends nothing: balance, ledger, generation count and the submit
//   counter of `limits.submissions` (learnt from the submit itself) stay as they were;
//   the second account's submit with the same `Idempotency-Key` is not answered with it;
// - an estimate afterwards creates, charges and counts nothing either;
// - every status the generation was read in comes on the event stream, in order, and
//   none of its events on a stream of the other types;
// - the balance moved by the ledger rows the submit wrote.
import type { EventStream } from "../../target/stream.ts";
import { accountState, learnSubmitCounter, newGenerations, sameMoney, submitsSpent, type AccountState, type SubmitCounter } from "../../kit/money.ts";
import { firstPage, nextPage, whole } from "../../kit/pages.ts";
import { randomToken } from "../../kit/ids.ts";
import { outputPaths } from "../../kit/gone.ts";
import { errorCodeOf, type Exchange, succeeded } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";
import { framesOf, FINAL } from "../../kit/streams.ts";

export const SUBMIT_SEQUENCE_RULES = ["SUB-2", "LIM-5", "PAGE-4", "PRICE-1", "PRICE-4", "EVT-11", "EVT-10", "BILL-1", "W-8"];




export const submitSequence: Check = {
  name: "across calls: a submit between page reads, its replay, an estimate, its statuses on the stream",
  rules: SUBMIT_SEQUENCE_RULES,
  needs: { spend: true, facts: ["priced"], uses: ["models", "secondAccount"] },
  provides: ["submitCounter", "settled"],
  async run(c) {
    // The cheapest body of another type than the cheapest, where there is one: a free quota
    // may cover the cheapest type (as the spending checks find), and the charge, its ledger
    // row and the estimate's ceiling are what this sequence reads.
    const priced = c.fact("priced");
    const chosen = priced.find((p) => p.body.type !== priced[0]?.body.type) ?? priced[0];
    if (!chosen) {
      c.skip(SUBMIT_SEQUENCE_RULES, "no body the server prices (a minimal video or image submit): nothing to submit");
      return;
    }
    const body: Record<string, unknown> = { ...chosen.body, prompt: `${String(chosen.body.prompt ?? "")} (sequence ${randomToken()})` };
    const opened = await c.target.openStream({ rule: "EVT-11" }, {});
    // A stream of the other types only: the generation's events never come on it.
    const type = String(body.type);
    const others = [...new Set((c.known("models") ?? []).map((m) => String(m.type)))].filter((t) => t !== type && t !== "text");
    const filtered = others.length > 0 ? await c.target.openStream({ rule: "EVT-10", query: `?types=${encodeURIComponent(others.join(","))}` }, {}) : undefined;
    try {
      const id = await sequence(c, body, opened.stream);
      if (id && filtered) typesKept(c, filtered.stream, id, type, others);
      else if (!filtered) c.skip(["EVT-10"], `the catalog has no type other than ${type}: a stream of other types not opened`);
    } finally {
      opened.stream?.close();
      filtered?.stream?.close();
    }
  },
};

/** The sequence; the id of the generation it made, when the submit was accepted. */
async function sequence(c: CheckContext, body: Record<string, unknown>, stream: EventStream | undefined): Promise<string | undefined> {
  const key = `conformance-sequence-${randomToken()}`;
  const submit = (k: string, extra: { key?: string } = {}) => c.post("/v1/generations", body, "SUB-2", { ...extra, headers: { "idempotency-key": k } });

  // Before: the estimate of this very body, the first pages, the account.
  const estimate = await c.post("/v1/pricing/estimate", body, "PRICE-1");
  const price = estimate.status === 200 && Number.isInteger(estimate.json?.price_cc) ? (estimate.json.price_cc as number) : undefined;
  // The account before (page reads change nothing of it), and the first pages with its heads as their reference.
  const s0 = await accountState(c, "SUB-2");
  const generations = await firstPage(c, "/v1/generations", "generations", "PAGE-4", undefined, s0.generations);
  const ledger = await firstPage(c, "/v1/billing/transactions", "the ledger", "PAGE-4", whole, s0.ledger);

  const first = await submit(key);
  if (!succeeded(first) || typeof first.json?.id !== "string") {
    c.skip(SUBMIT_SEQUENCE_RULES, `the submit of a body the server priced answered ${first.status} ${errorCodeOf(first.json) ?? ""}`);
    return undefined;
  }
  const id = String(first.json.id);
  const s1 = await accountState(c, "SUB-2");
  ceiling(c, price, id, s0, s1, first);
  ledgerAddsUp(c, s0, s1);
  if (generations) await nextPage(c, generations, "a submit", "PAGE-4");
  if (ledger) await nextPage(c, ledger, "a submit (its ledger row)", "PAGE-4");
  const counter = learnSubmitCounter(s0, s1);
  if (counter.size > 0) c.learn("submitCounter", counter);
  else {
    const why = `no number of limits.submissions moved by one with an accepted submit (${JSON.stringify(s1.me.json?.limits?.submissions ?? null).slice(0, 120)})`;
    c.skip(["LIM-5"], `the submit quota a replay or an estimate spends not compared: ${why}`);
    c.notLearnt("submitCounter", why);
  }

  await otherAccount(c, body, key, id);

  // An exact replay spends nothing.
  const replay = await submit(key);
  c.expect(replay.status === 202 && replay.json?.id === id, "SUB-2", `an exact replay answered ${replay.status} ${replay.json?.id ?? errorCodeOf(replay.json) ?? ""}, not 202 with ${id}`, replay);
  const s2 = await accountState(c, "SUB-2");
  spentNothing(c, "SUB-2", s1, s2, counter, "an exact replay of a submit", replay);

  // An estimate creates, charges and counts nothing, and spends one request of the window.
  const again = await c.post("/v1/pricing/estimate", body, "PRICE-4");
  // The ledger around estimates is read by the price checks.
  const s3 = await accountState(c, "PRICE-4", { ledger: false });
  spentNothing(c, "PRICE-4", s2, s3, counter, "an estimate", again);

  await statusesOnStream(c, stream, id);
  return id;
}

/** `types` narrows the stream: a stream of the other types got no event of this generation (it was open through all of them). */
function typesKept(c: CheckContext, s: EventStream | undefined, id: string, type: string, others: string[]): void {
  if (!s) {
    c.skip(["EVT-10"], `a stream of types ${others.join(",")} did not open: the filter not held across a generation's life`);
    return;
  }
  const leaked = framesOf(s, id);
  c.expect(leaked.length === 0, "EVT-10", `a stream opened with types=${others.join(",")} got ${leaked.length} event(s) of ${id}, a ${type} generation (${leaked.map((f) => f.data?.status).join(", ")})`, s.opened);
}

/** The charge of the submit (its ledger rows, else the balance's fall) is within the estimate's `price_cc`. */
function ceiling(c: CheckContext, price: number | undefined, id: string, s0: AccountState, s1: AccountState, ex: Exchange): void {
  if (price === undefined) {
    c.skip(["PRICE-1"], "the estimate of the submitted body gave no price_cc: the charge not compared with it");
    return;
  }
  const rows = (s1.ledger ?? []).map((r) => JSON.parse(r) as Record<string, any>).filter((r) => r?.generation_id === id && Number.isInteger(r?.amount_cc));
  const charged = rows.length > 0 ? -rows.reduce((sum, r) => sum + (r.amount_cc as number), 0) : s0.balance !== undefined && s1.balance !== undefined ? s0.balance - s1.balance : undefined;
  if (charged === undefined) return;
  c.note("PRICE-1", `${id}: estimated ${price} cc, charged ${charged} cc`);
  if (charged === 0) c.skip(["PRICE-1"], `the submit of ${id} was not charged (a free quota): the estimate's ceiling not compared with a charge`);
  c.expect(charged <= price, "PRICE-1", `the submit of ${id} was charged ${charged} cc (${rows.length > 0 ? "its ledger rows" : "the balance's fall"}); the estimate of the same body said ${price} cc, a ceiling`, rows.length > 0 ? s1.ledgerAnswer : ex);
}

/**
 * The ledger's rows move the balance: between two reads with one submit between them, the
 * balance moved by the sum of the rows that are new at the ledger's head (signed: negative
 * debits it).
 */
function ledgerAddsUp(c: CheckContext, s0: AccountState, s1: AccountState): void {
  if (s0.balance === undefined || s1.balance === undefined || !s0.ledger || !s1.ledger) return;
  const fresh = s1.ledger.filter((r) => !s0.ledger!.includes(r)).map((r) => JSON.parse(r) as Record<string, any>);
  // A head of 5 rows may hide a sixth new one: judged only when the head still shows an old row.
  if (!s1.ledger.some((r) => s0.ledger!.includes(r)) && s0.ledger.length > 0) return;
  const sum = fresh.reduce((n, r) => n + (Number.isInteger(r.amount_cc) ? (r.amount_cc as number) : 0), 0);
  c.expect(sum === s1.balance - s0.balance, "BILL-1", `the balance moved by ${s1.balance - s0.balance} cc around a submit, and the ledger's new rows add up to ${sum} cc (${fresh.map((r) => r.amount_cc).join(", ") || "none"}); amount_cc credits or debits the balance`, s1.ledgerAnswer);
}

/** Nothing was spent between two reads: money, generations, the submit counter (`rule`, and LIM-5 for the counter). */
function spentNothing(c: CheckContext, rule: string, before: AccountState, after: AccountState, counter: SubmitCounter, what: string, ex: Exchange): void {
  sameMoney(c, rule, before, after, what, ex);
  const made = newGenerations(before, after);
  c.expect(made.length === 0, rule, `${what} created generation(s): ${made.join(", ")} now head the list`, after.generationsAnswer ?? ex);
  if (counter.size === 0) return;
  const spent = submitsSpent(counter, before, after);
  // The seed says it of a replay twice (the submit's rules and the limits'); of an estimate, once.
  for (const r of rule === "SUB-2" ? ["SUB-2", "LIM-5"] : [rule]) c.expect(spent.length === 0, r, `${what} spent submit quota: ${spent.join(", ")} (an accepted submit moved it so)`, after.me);
}

/**
 * Idempotency keys are the account's own: the second account's submit with this
 * account's key and body is not answered with this account's generation.
 */
async function otherAccount(c: CheckContext, body: Record<string, unknown>, key: string, id: string): Promise<void> {
  const second = c.known("secondAccount");
  if (!second) {
    c.skip(["W-8"], "an Idempotency-Key of this account not tried by another account (no --other-api-key)");
    return;
  }
  const ex = await c.post("/v1/generations", body, "W-8", { key: second.key, headers: { "idempotency-key": key } });
  c.expect(ex.json?.id !== id, "W-8", `the second account's submit with this account's Idempotency-Key answered ${ex.status} with this account's generation ${id}`, ex);
}

/**
 * Every status the generation was read in (the batch status read, as a client catching
 * up does) came on the stream as an event, in the order read, and the events' times
 * never go back.
 */
async function statusesOnStream(c: CheckContext, s: EventStream | undefined, id: string): Promise<void> {
  if (!s) {
    c.skip(["EVT-11"], "the event stream did not open: the statuses read not compared with its events");
    return;
  }
  const read: string[] = [];
  let last: Exchange | undefined;
  const done = () => framesOf(s, id).some((f) => FINAL.has(f.data?.status));
  const started = Date.now();
  for (let step = 0, waited = 0; waited <= c.settings.settleSeconds; step++) {
    last = await c.post("/v1/generations/status", { ids: [id] }, "EVT-11");
    const status = last.json?.data?.find?.((r: any) => r?.id === id)?.status;
    if (typeof status === "string" && read.at(-1) !== status) read.push(status);
    if (FINAL.has(String(status)) && (await s.until(done, 3_000))) break;
    // One second at a time on a clock the caller moves; growing pauses in real time.
    const pause = c.clockMoves ? 1 : Math.min(5, 0.5 * (step + 1));
    await c.wait(pause);
    waited = c.clockMoves ? waited + pause : (Date.now() - started) / 1000;
  }
  const frames = framesOf(s, id);
  const streamed = frames.map((f) => String(f.data?.status));
  const record = last?.json?.data?.find?.((r: any) => r?.id === id);
  if (record && FINAL.has(String(record.status))) {
    c.learn("settled", { id, status: String(record.status), outputs: outputPaths(c, record) });
  }
  if (!FINAL.has(read.at(-1) ?? "")) {
    c.skip(["EVT-11"], `${id} did not reach a final status within ${c.settings.settleSeconds} s: read ${read.join(" -> ")}`);
    return;
  }
  let at = 0;
  const missing: string[] = [];
  for (const status of read) {
    const found = streamed.indexOf(status, at);
    if (found < 0) missing.push(status);
    else at = found + 1;
  }
  c.expect(missing.length === 0, "EVT-11", `${id} was read as ${read.join(" -> ")} but its events say ${streamed.join(" -> ") || "nothing"}: ${missing.join(", ")} did not come on the stream in that order (every status change is an event)`, s.opened);
  const times = frames.map((f) => Date.parse(String(f.data?.updated_at)));
  const back = times.findIndex((t, i) => i > 0 && t < times[i - 1]!);
  c.expect(back < 0, "EVT-11", `the events of ${id} go back in time: ${frames[back]?.data?.status} at ${frames[back]?.data?.updated_at} after ${frames[back - 1]?.data?.status} at ${frames[back - 1]?.data?.updated_at}`, s.opened);
  c.note("EVT-11", `${id}: read ${read.join(" -> ")}; streamed ${streamed.join(" -> ")}`);
}
