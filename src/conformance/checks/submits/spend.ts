// Checks that create generations and cost credits (`--allow-spend`): the submit and its
// idempotent replay, refusals of a submit, the creation event and every status change
// on the stream, resume with Last-Event-ID (no loss, no repeat), a new stream that does
// not replay history, newest-first order. Uses the cheapest body the server priced.
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { shown } from "../../kit/describe.ts";
import type { EventStream } from "../../target/stream.ts";
import { randomToken } from "../../kit/ids.ts";
import { overBound } from "../../kit/bounds.ts";
import { errorCodeOf, said, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";
import { framesOf, FINAL } from "../../kit/streams.ts";

const QUIET_MS = 750;
const RESUME_MS = 3_000;
const STEP_SECONDS = 2;

const RULES = ["ST-5", "SUB-0", "SUB-1", "SUB-2", "SUB-3", "SUB-5", "SUB-6", "SUB-V", "SUB-I", "SUB-U", "W-10", "ST-1", "EVT-1", "EVT-4", "EVT-5", "EVT-9", "EVT-11", "PAGE-4", "GEN-1"];

function key(): string {
  return `conformance-${randomToken()}`;
}



/** Waits (moving the clock when the caller controls it) until every id has a final status on the stream. */
async function settle(c: CheckContext, s: EventStream, ids: string[]): Promise<boolean> {
  const done = () => ids.every((id) => framesOf(s, id).some((f) => FINAL.has(f.data?.status)));
  if (c.clockMoves) {
    for (let t = 0; t <= c.settings.settleSeconds; t += STEP_SECONDS) {
      if (await s.until(done, 50)) return true;
      await c.wait(STEP_SECONDS);
    }
    return s.until(done, 200);
  }
  if (done()) return true;
  return c.target.waiting(`up to ${c.settings.settleSeconds} s for ${ids.length} generation(s) to finish on the event stream (--settle-seconds)`, c.settings.settleSeconds, s.until(done, c.settings.settleSeconds * 1000));
}

export const spend: Check = {
  name: "submits, replays and the stream of their changes",
  rules: RULES,
  needs: { spend: true, facts: ["priced"], uses: ["models", "secondAccount"] },
  provides: ["created", "balanceBeforeSpend"],
  async run(c) {
    const cheapest = c.fact("priced")[0]!;
    const opened = await c.target.openStream({ rule: "EVT-11" }, {});
    const s = opened.stream;
    try {
      await run(c, cheapest.body, s);
    } finally {
      s?.close();
    }
  },
};

async function run(c: CheckContext, base: Record<string, unknown>, s: EventStream | undefined): Promise<void> {
  const body: Record<string, unknown> = { ...base, prompt: `${String(base.prompt ?? "")} (${randomToken()})` };
  const k1 = key();
  const submit = (b: unknown, k: string | undefined, rule: string) =>
    c.post("/v1/generations", b, rule, { headers: k === undefined ? {} : { "idempotency-key": k } });

  // Accepted: 202 (checkAnswer charges any other status to SUB-1), Location, the record.
  const balanceBefore = await c.balance("SUB-1");
  if (balanceBefore !== undefined) c.learn("balanceBeforeSpend", balanceBefore);
  else c.notLearnt("balanceBeforeSpend", "GET /v1/me gave no credits.main_cc before the first submit");
  const first = await submit(body, k1, "SUB-1");
  if (first.status < 200 || first.status >= 300 || typeof first.json?.id !== "string") {
    c.fail("SUB-1", `a submit of a body the server priced answered ${first.status} ${errorCodeOf(first.json) ?? ""}`, first);
    c.skip(RULES.filter((r) => r !== "SUB-1"), "the first submit was not accepted");
    return;
  }
  const a = first.json as Record<string, any>;
  c.add("created", a);
  const location = first.headers.get("location");
  const locPath = location ? c.target.pathOf(location) : undefined;
  if (c.expect(locPath === `/v1/generations/${a.id}` || locPath === `/v1/generations/${encodeURIComponent(a.id)}`, "SUB-1", `Location ${JSON.stringify(location)} does not point at GET /v1/generations/${a.id}`, first)) {
    const read = await c.get(locPath!, "ST-1");
    c.expect(read.status === 200 && read.json?.id === a.id, "ST-1", `the new row does not read back at its Location: ${read.status}`, read);
  }

  // A replay: the same record, 202, nothing more created.
  const replay = await submit(body, k1, "SUB-2");
  c.expect(replay.status === 202 && replay.json?.id === a.id, "SUB-2", `a replay answered ${replay.status} ${replay.json?.id ?? errorCodeOf(replay.json) ?? ""}, not 202 with ${a.id}`, replay);

  // The same key with another body.
  const conflict = await submit({ ...body, prompt: `${body.prompt} (changed)` }, k1, "SUB-3");
  c.refusal(conflict, "duplicate_key_conflict", "SUB-3", "the same Idempotency-Key with another body");

  // Refused before anything is created.
  const noKey = await submit(body, undefined, "SUB-0");
  c.target.deliberate(noKey);
  c.refusal(noKey, "invalid_request", "SUB-0", "a submit without Idempotency-Key");
  const unknown = await submit({ ...body, conformance_unknown_field: true }, key(), "SUB-0");
  c.target.deliberate(unknown);
  if (c.refusal(unknown, "invalid_request", "SUB-0", "a submit with an unknown field")) {
    const d = unknown.json?.error?.details;
    c.expect(Array.isArray(d) && d.some((x: any) => x.field === "conformance_unknown_field" && x.reason === "unknown_field"), "SUB-0", `details do not name the unknown field: ${JSON.stringify(d)}`, unknown);
  }
  await bounds(c, body);

  // The type the API does not submit: 503 naming the type, nothing charged.
  const before = await moneyOf(c, "W-10");
  const text = await submit({ type: "text", model: String(body.model), prompt: "hello" }, key(), "SUB-5");
  if (c.refusal(text, "submit_unavailable", "SUB-5", "a submit of type text")) {
    c.expect(/\btext\b/.test(String(text.json?.error?.message ?? "")), "SUB-5", `the refusal does not name the type: ${JSON.stringify(text.json?.error?.message)}`, text);
  }
  sameMoney(c, "W-10", before, await moneyOf(c, "W-10"), "a text submit", text);

  // A second generation (the cheapest of another type when there is one: a free quota of
  // one type may cover the first, and the reports need one that was charged): newest first.
  const otherType = c.fact("priced").find((p) => p.body.type !== base.type)?.body;
  const secondBody = { ...(otherType ?? base), prompt: `${String((otherType ?? base).prompt ?? "")} (second, ${randomToken()})` };
  const second = await submit(secondBody, key(), "PAGE-4");
  const b = second.status >= 200 && second.status < 300 && typeof second.json?.id === "string" ? (second.json as Record<string, any>) : undefined;
  if (b) {
    c.add("created", b);
    // Newest first: the second is listed before the first (whatever else the account made meanwhile).
    const top = await c.get("/v1/generations?limit=10", "PAGE-4");
    const ids = Array.isArray(top.json?.data) ? top.json.data.map((r: any) => r.id) : [];
    const [ib, ia] = [ids.indexOf(b.id), ids.indexOf(a.id)];
    c.expect(ib >= 0 && ia >= 0 && ib < ia, "PAGE-4", `the newest generations are listed as [${ids.slice(0, 4).join(", ")}${ids.length > 4 ? ", …" : ""}]: ${b.id} (the second submit) ${ib < 0 ? "is not among them" : ia < 0 ? `is there but ${a.id} is not` : `comes after ${a.id}`} (newest first)`, top);
  } else c.skip(["PAGE-4"], `the second submit was not accepted (${second.status})`);

  // Another account's generation never enters this account's stream.
  let foreign: string | undefined;
  const account = c.known("secondAccount");
  if (account) {
    const ex = await c.post("/v1/generations", { ...body, prompt: `${body.prompt} (other account)` }, "EVT-4", { key: account.key, headers: { "idempotency-key": key() } });
    if (ex.status >= 200 && ex.status < 300 && typeof ex.json?.id === "string") foreign = ex.json.id;
    else c.skip(["EVT-4"], `the second account could not submit (${ex.status} ${errorCodeOf(ex.json) ?? ""}): its events were not looked for`);
  } else c.skip(["EVT-4"], "another account's events not looked for (no --other-api-key)");

  if (!s) {
    c.skip(["ST-1", "EVT-1", "EVT-4", "EVT-5", "EVT-9", "EVT-11"], "the event stream did not open");
    return;
  }
  const ids = [a.id, ...(b ? [b.id] : [])];
  if (!(await settle(c, s, ids))) {
    c.skip(["EVT-4", "EVT-9", "EVT-11", "SUB-2"], `the generations did not reach a final status on the stream within ${c.settings.settleSeconds} s`);
    c.expect(framesOf(s, a.id).length > 0, "ST-1", `no event for the creation of ${a.id}`, s.opened);
    return;
  }
  if (foreign) {
    const leaked = s.frames.filter((f) => f.data?.id === foreign);
    c.expect(leaked.length === 0, "EVT-4", `${leaked.length} event(s) of another account's generation ${foreign} came on this account's stream`, s.opened);
  }
  await streamChecks(c, s, a, first);

  // A replay after the change answers the record at its current status.
  const now = await c.get(`/v1/generations/${encodeURIComponent(a.id)}`, "SUB-2");
  const money = await c.balance("SUB-2");
  const late = await submit(body, k1, "SUB-2");
  // The status the replay must repeat is the one its read shows; without one, only the record is compared.
  const current: unknown = now.status === 200 ? now.json?.status : undefined;
  const reached = typeof current === "string" ? `reached ${current}` : `finished (its read answered ${said(now)}${now.status === 200 ? " without a status" : ""}, so the status to repeat is not known)`;
  c.expect(late.status === 202 && late.json?.id === a.id && (typeof current !== "string" || late.json?.status === current), "SUB-2", `a replay after the generation ${reached} answered ${said(late)} with ${late.json?.id === a.id ? `status ${shown(late.json?.status)}` : `the record of ${shown(late.json?.id)}, not of ${a.id}`}`, late);
  const money2 = await c.balance("SUB-2");
  if (money !== undefined && money2 !== undefined) c.expect(money === money2, "SUB-2", `a replay moved the balance from ${money} to ${money2} cc`);
}

/** One bound per published variant, refused with a detail naming the field. */
async function bounds(c: CheckContext, base: Record<string, unknown>): Promise<void> {
  const variants: [string, string][] = [["video", "SUB-V"], ["image", "SUB-I"], ["upscale", "SUB-U"]];
  for (const [type, rule] of variants) {
    const model = (c.known("models") ?? []).find((m) => m.type === type);
    const over = overBound(type);
    if (!model || !over) {
      c.skip([rule], `no ${type} model in the catalog`);
      continue;
    }
    const body: Record<string, unknown> = type === "upscale"
      ? { type, model: model.id, image_url: `https://conformance.invalid/in-${randomToken()}.png`, scale: 2 }
      : { type, model: model.id, prompt: String(base.prompt ?? "") };
    body[over.field] = over.value;
    const ex = await c.post("/v1/generations", body, rule, { headers: { "idempotency-key": key() } });
    c.target.deliberate(ex);
    if (c.refusal(ex, "invalid_request", "SUB-6", `a ${type} submit with ${over.field} out of bounds`)) {
      const d = ex.json?.error?.details;
      const named = Array.isArray(d) && d.some((x: any) => x.field === over.field && x.reason === "out_of_range");
      c.expect(named, rule, `details of a ${type} submit with ${over.field} out of bounds do not name it out_of_range: ${JSON.stringify(d)}`, ex);
    } else if (ex.status >= 200 && ex.status < 300) c.fail(rule, `a ${type} submit with ${over.field} out of bounds was accepted`, ex);
  }
  c.skip(["SUB-3D"], "the 3D variant's type value is not shown in the seed");
}

async function streamChecks(c: CheckContext, s: EventStream, a: Record<string, any>, first: Exchange): Promise<void> {
  const mine = framesOf(s, a.id);
  // The creation is an event; its status is the record's first.
  c.expect(mine.length > 0 && mine[0]!.data?.status === a.status, "ST-1", `the first event of ${a.id} is ${JSON.stringify(mine[0]?.data?.status)}; the submit answered ${a.status} (the creation is an event)`, first);
  const final = await c.get(`/v1/generations/${encodeURIComponent(a.id)}`, "EVT-11");
  const statuses = mine.map((f) => f.data?.status);
  c.expect(statuses.at(-1) === final.json?.status, "EVT-11", `the last event of ${a.id} says ${shown(statuses.at(-1))}; the record is ${shown(final.json?.status)}`, final);
  c.expect(statuses[0] === a.status, "EVT-11", `the creation (${a.status}) did not enter the stream: ${statuses.join(" -> ")}`, s.opened);
  const fullRecord = mine.find((f) => f.data && ["output_urls", "error", "refunded", "prompt"].some((k) => k in f.data));
  c.expect(!fullRecord, "EVT-5", `a frame carries fields of the full record: ${fullRecord ? Object.keys(fullRecord.data).join(", ") : ""}`, s.opened);
  c.note("EVT-11", `${a.id}: ${statuses.join(" -> ")}`);
  // DONE is final: no later event moves a DONE generation elsewhere (deletion keeps it).
  const done = mine.findIndex((f) => f.data?.status === "DONE");
  if (done >= 0) {
    const moved = mine.slice(done + 1).find((f) => f.data?.status !== "DONE");
    c.expect(!moved, "ST-5", `${a.id} moved from DONE to ${moved?.data?.status}`, s.opened);
  } else c.skip(["ST-5"], `${a.id} ended ${statuses.at(-1)}, not DONE`);

  // Resume right after the first frame: the rest, in order, nothing again.
  const all = s.frames.filter((f) => f.id !== undefined);
  const from = mine[0]!;
  const expected = s.after(from.id).filter((f) => f.id !== undefined).map((f) => f.id!);
  const resumed = await c.target.openStream({ rule: "EVT-9", lastEventId: from.id }, {});
  if (!resumed.stream) {
    c.fail("EVT-9", `resuming with Last-Event-ID answered ${resumed.exchange.status}`, resumed.exchange);
  } else {
    const r = resumed.stream;
    await r.until((x) => x.frames.length >= expected.length, RESUME_MS);
    await r.until(() => false, expected.length === 0 ? QUIET_MS : 200);
    r.close();
    const got = r.frames.map((f) => f.id ?? "");
    if (r.frames[0]?.event === "reset") c.fail("EVT-9", `an id the stream issued 0 s ago was answered with reset (${r.frames[0].data?.reason})`, resumed.exchange);
    else {
      const repeated = got.filter((id, i) => id === from.id || got.indexOf(id) !== i);
      const lost = expected.filter((id) => !got.includes(id));
      const order = got.slice(0, expected.length).join() === expected.join();
      if (repeated.length > 0) c.fail("EVT-9", `after resuming, ${repeated.length} frame(s) came again (${repeated.slice(0, 2).join(", ")})`, resumed.exchange);
      if (lost.length > 0) c.fail("EVT-9", `after resuming, ${lost.length} of ${expected.length} frames were lost`, resumed.exchange);
      if (repeated.length === 0 && lost.length === 0) c.expect(order, "EVT-9", "after resuming, the frames came in another order", resumed.exchange);
    }
  }

  // A new connection without Last-Event-ID starts now: nothing earlier comes.
  const fresh = await c.target.openStream({ rule: "EVT-4" }, {});
  if (fresh.stream) {
    await fresh.stream.until(() => false, QUIET_MS);
    fresh.stream.close();
    const old = fresh.stream.frames.filter((f) => all.some((x) => x.id === f.id));
    c.expect(old.length === 0, "EVT-4", `a new stream without Last-Event-ID replayed ${old.length} earlier frame(s)`, fresh.exchange);
  }
}
