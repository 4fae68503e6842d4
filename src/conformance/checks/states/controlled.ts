// Sequences that need what the seed shows no public route for (`control`: the caller's
// control of the server, see target/control.ts): a generation cancelled before work
// starts (one `FAILED` event with `deleted: true`, then 404 on every route and absent from
// the list), a finished generation deleted (one event with its previous status and
// `deleted: true`, then gone everywhere), and a key revoked while in use (its open stream
// ends with `terminated`, and every route that takes a key refuses it with
// `api_key_revoked`, also those it was accepted on before: no cache of key checks), and a
// provider's result that comes late (the attempt closed `FAILED`, then a separate `DONE`
// event, and the record `DONE` with `output_urls` and `refunded`).
import { operations, type Operation } from "../../../contract/index.ts";
import { isUnrouted } from "../../judge/broken-rule.ts";
import { terminated, framesOf } from "../../kit/streams.ts";
import { harmless, held, HELD_FACTS } from "../../kit/routes.ts";
import { Sequence } from "../../kit/sequence.ts";
import type { EventStream, Frame } from "../../target/stream.ts";
import { randomToken } from "../../kit/ids.ts";
import { sweepGone } from "../../kit/gone.ts";
import { errorCodeOf, operationLabel, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

export const CONTROL_RULES = ["ST-2", "ST-3", "GEN-9", "EVT-11", "AUTH-7", "EVT-7", "ST-4"];

const EVENT_MS = 3_000;
const QUIET_MS = 300;
const WHY = "(the library's `control`; the CLI's own simulator has one)";
/** How long a late result may take to come, in steps of the server's time (moved, or waited within --max-wait). */
const LATE_STEPS = 3;
const LATE_STEP_SECONDS = 10;


/** Calls the control; a refusal of the control itself is noted on `rules`, not a finding. */
async function controlled(c: CheckContext, rules: readonly string[], what: string, act: () => Promise<void>): Promise<boolean> {
  try {
    await act();
    return true;
  } catch (error) {
    c.skip(rules, `${what} through the server's control failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/** The events of `id` that came on `s` after `after` of them, once a deleted one came and the stream was quiet a moment. */
async function eventsAfter(s: EventStream, id: string, after: number): Promise<Frame[]> {
  await s.until((x) => framesOf(x, id).slice(after).some((f) => f.data?.deleted === true), EVENT_MS);
  await s.until(() => false, QUIET_MS);
  return framesOf(s, id).slice(after);
}

/** One event, `status` and `deleted: true`: held to `rule` (the state table's) and EVT-11 (the stream's, which says it again). */
function oneEvent(c: CheckContext, rule: string, s: EventStream, frames: Frame[], id: string, status: string, what: string): void {
  const said = frames.map((f) => `${f.data?.status} deleted=${f.data?.deleted}`).join(", ") || "none";
  const ok = frames.length === 1 && frames[0]!.data?.status === status && frames[0]!.data?.deleted === true;
  for (const r of [rule, "EVT-11"]) c.expect(ok, r, `${what} of ${id} came on the stream as ${said}; one event with status ${status} and deleted: true`, s.opened);
}

export const controlledSequences: Check = {
  name: "across calls: a generation cancelled, one deleted, a key revoked, a late result (with control of the server)",
  rules: CONTROL_RULES,
  needs: { uses: ["priced", "settled", ...HELD_FACTS] },
  async run(c) {
    await cancellation(c);
    await deletion(c);
    await revokedKey(c);
    await lateResult(c);
  },
};

/** A generation cancelled before work starts: one FAILED event with deleted: true, then gone from every route. */
async function cancellation(c: CheckContext): Promise<void> {
  const cancel = c.settings.options.control?.cancelGeneration;
  const rules = ["ST-2", "GEN-9"];
  if (!cancel) return c.skip(rules, `no cancellation: its route is not shown in the seed, and the run was given no control of the server that cancels ${WHY}`);
  if (!c.settings.spend) return c.skip(rules, "no cancellation: it needs a generation to cancel (--allow-spend)");
  const body = c.known("priced")?.[0]?.body;
  if (!body) return c.skip(rules, `no cancellation: no body the server prices to submit (${c.whyUnknown("priced")})`);
  const opened = await c.target.openStream({ rule: "ST-2" }, {});
  const s = opened.stream;
  try {
    const ex = await c.post("/v1/generations", { ...body, prompt: `${String(body.prompt ?? "")} (to cancel, ${randomToken()})` }, "ST-2", { headers: { "idempotency-key": `conformance-cancel-${randomToken()}` } });
    const id = ex.status >= 200 && ex.status < 300 && typeof ex.json?.id === "string" ? String(ex.json.id) : undefined;
    if (!id || !s) return c.skip(rules, `no cancellation: the submit answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}${s ? "" : ", the stream did not open"}`);
    await s.until((x) => framesOf(x, id).length > 0, EVENT_MS);
    const created = framesOf(s, id).length;
    if (!(await controlled(c, rules, `cancelling ${id}`, () => cancel(id)))) return;
    oneEvent(c, "ST-2", s, await eventsAfter(s, id, created), id, "FAILED", "the cancellation");
    await sweepGone(c, { kind: "generations", id, rule: "ST-2", why: "its cancellation" }, (op) => (op === "readGeneration" ? "GEN-9" : undefined));
  } finally {
    s?.close();
  }
}

/** A finished generation deleted: one event with its previous status and deleted: true, then gone from every route. */
async function deletion(c: CheckContext): Promise<void> {
  const remove = c.settings.options.control?.deleteGeneration;
  const settled = c.known("settled");
  if (!remove) return c.skip(["ST-3"], `no deletion: its route is not shown in the seed, and the run was given no control of the server that deletes ${WHY}`);
  if (!settled || settled.status !== "DONE") return c.skip(["ST-3"], `no deletion: the run has no DONE generation of its own to delete (${settled ? `it ended ${settled.status}` : "--allow-spend"})`);
  const opened = await c.target.openStream({ rule: "ST-3" }, {});
  const s = opened.stream;
  try {
    if (!s) return c.skip(["ST-3"], `no deletion: the stream did not open (${opened.exchange.status})`);
    if (!(await controlled(c, ["ST-3"], `deleting ${settled.id}`, () => remove(settled.id)))) return;
    oneEvent(c, "ST-3", s, await eventsAfter(s, settled.id, 0), settled.id, settled.status, "the deletion");
    await sweepGone(c, { kind: "generations", id: settled.id, rule: "ST-3", why: "its deletion", outputs: settled.outputs });
  } finally {
    s?.close();
  }
}

/** A provider's result that comes late (ST-4): the attempt closed FAILED, then a separate DONE event, and the record DONE with output_urls and refunded. */
async function lateResult(c: CheckContext): Promise<void> {
  const late = c.settings.options.control?.lateResult;
  const rules = ["ST-4"];
  if (!late) return c.skip(rules, `no late result: no client can cause one, and the run was given no control of the server that makes one ${WHY}`);
  if (!c.settings.spend) return c.skip(rules, "no late result: it needs a generation of the run's own (--allow-spend)");
  const body = c.known("priced")?.[0]?.body;
  if (!body) return c.skip(rules, `no late result: no body the server prices to submit (${c.whyUnknown("priced")})`);
  if (!c.timeAllows(LATE_STEPS * LATE_STEP_SECONDS, rules, "a late result")) return;
  const opened = await c.target.openStream({ rule: "ST-4" }, {});
  const s = opened.stream;
  try {
    const ex = await c.post("/v1/generations", { ...body, prompt: `${String(body.prompt ?? "")} (a late result, ${randomToken()})` }, "ST-4", { headers: { "idempotency-key": `conformance-late-${randomToken()}` } });
    const id = ex.status >= 200 && ex.status < 300 && typeof ex.json?.id === "string" ? String(ex.json.id) : undefined;
    if (!id || !s) return c.skip(rules, `no late result: the submit answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}${s ? "" : ", the stream did not open"}`);
    if (!(await controlled(c, rules, `making the result of ${id} late`, () => late(id)))) return;
    // The server's own timing: its clock moved (or the time waited for) a step at a time.
    // A moved clock is not waited for: a short look per step, the full wait after the last.
    const came = () => framesOf(s, id).some((f) => f.data?.status === "DONE");
    const look = c.clockMoves ? QUIET_MS : EVENT_MS;
    for (let step = 0; step < LATE_STEPS && !(await s.until(came, look)); step++) {
      if (!(await c.passTime(LATE_STEP_SECONDS, rules, "a late result"))) return;
    }
    await s.until(came, EVENT_MS);
    const statuses = framesOf(s, id).map((f) => String(f.data?.status));
    const failed = statuses.indexOf("FAILED");
    c.expect(failed >= 0 && statuses.indexOf("DONE", failed) > failed, "ST-4", `the generation ${id} whose result came late showed on the stream as ${statuses.join(", ") || "nothing"}; a FAILED event, then a separate DONE event`, opened.exchange);
    const read = await c.get(`/v1/generations/${encodeURIComponent(id)}`, "ST-4");
    const g = read.json;
    const urls = Array.isArray(g?.output_urls) ? g.output_urls.length : undefined;
    c.expect(read.status === 200 && g?.status === "DONE" && urls !== undefined && urls > 0 && g?.refunded !== undefined, "ST-4", `after its late result, ${id} read ${read.status} ${g?.status ?? ""} with ${urls === undefined ? "no output_urls" : `${urls} output_urls`} and ${g?.refunded === undefined ? "no refunded" : `refunded ${JSON.stringify(g.refunded)}`}; DONE, with output_urls and refunded`, read);
  } finally {
    s?.close();
  }
}

/** A key revoked while in use: its stream ends with `terminated`, every route that takes a key refuses it. */
async function revokedKey(c: CheckContext): Promise<void> {
  const control = c.settings.options.control;
  if (!control?.newKey || !control.revokeKey) return c.skip(["AUTH-7", "EVT-7"], `no key revoked during the run: the run was given no control of the server that makes and revokes keys ${WHY}`);
  let key: string;
  try {
    key = await control.newKey();
  } catch (error) {
    return c.skip(["AUTH-7"], `no key to revoke: ${error instanceof Error ? error.message : String(error)}`);
  }
  const label = "key revoked in the run";
  const seq = new Sequence(c, "a key revoked while in use", undefined);
  // Accepted first, on whoami and on another route (a server that caches key checks holds it now).
  const who = await seq.send("readWhoami with the new key", { method: "GET", path: "/v1/whoami", key, label, rule: "AUTH-7" });
  const list = await seq.send("listGenerations with the new key", { method: "GET", path: "/v1/generations?limit=1", key, label, rule: "AUTH-7" });
  if (who.status !== 200 || list.status !== 200) return c.skip(["AUTH-7"], `the key made for the run was not accepted (${who.status}, ${list.status})`);
  const opened = await c.target.openStream({ key, label, rule: "EVT-7" }, {});
  if (!(await controlled(c, ["AUTH-7", "EVT-7"], "revoking the key", () => control.revokeKey!(key)))) return opened.stream?.close();
  await terminated(c, opened, { access: key, label }, "an API key");
  const routes = operations().filter((op) => op.path.startsWith("/v1/") && op.schemes.includes("api_key"));
  for (const op of routes) await refusedOn(seq, op, key, label);
}

async function refusedOn(seq: Sequence, op: Operation, key: string, label: string): Promise<void> {
  const c = seq.c;
  let ex: Exchange;
  if (op.operationId === "streamGenerationEvents") {
    const opened = await c.target.openStream({ key, label, rule: "AUTH-7" }, {});
    opened.stream?.close();
    seq.record(`${op.operationId} with the revoked key`, opened.exchange);
    ex = opened.exchange;
  } else ex = await seq.send(`${op.operationId} with the revoked key`, { ...harmless(op, "AUTH-7", held(c)), key, label });
  // Its body is empty on purpose (a request that changes nothing even if served).
  c.target.deliberate(ex);
  if (isUnrouted(op, ex.status)) return seq.note("AUTH-7", `${operationLabel(op)}: not routed (${ex.status}), see EP-4`);
  const code = errorCodeOf(ex.json);
  seq.expect(ex.status === 401 && code === "api_key_revoked", "AUTH-7", `${operationLabel(op)} with a key revoked during the run answered ${ex.status}${code ? ` ${code}` : ""}${ex.status >= 200 && ex.status < 300 ? ": served" : ""}; expected 401 api_key_revoked`, ex);
}
