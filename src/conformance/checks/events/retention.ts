// The event history's 7 days (EVT-12, "history is kept 7 days"; the reset reason
// `cursor_expired` is "history older than the retention window of 7 days"): a cursor
// whose events are older than that cannot be resumed, so the stream answers `reset` with
// `cursor_expired` first, not `cursor_unknown` (the server issued it) and not a silent
// resume that has lost the events since. A server that keeps more may send those events
// again (noted). One generation is submitted after the cursor, so that events follow it.
// Days pass only on a clock the caller moves (a simulator's control); elsewhere the rule
// is n/a, before anything is spent.
import { streamLimits } from "../../../contract/index.ts";
import { randomToken } from "../../kit/ids.ts";
import { framesOf } from "../../kit/streams.ts";
import { errorCodeOf, said } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

const FIRST_FRAME_MS = 5_000;
/** Past the 7 days: the generation's own changes (minutes on any server) fall out too. */
const MARGIN_SECONDS = 3_600;

export const eventRetention: Check = {
  name: "event history: a cursor older than the 7 days kept answers reset cursor_expired",
  rules: ["EVT-12"],
  when: "after time passes",
  needs: { spend: true, facts: ["priced"] },
  async run(c) {
    const days = streamLimits().retentionDays;
    const what = `the ${days} days of event history`;
    const seconds = days * 86_400 + MARGIN_SECONDS;
    if (!c.timeAllows(seconds, ["EVT-12"], what)) return;

    // A cursor of now: the fresh id of the reset an id never issued gets (EVT-6).
    const opened = await c.target.openStream({ rule: "EVT-12", lastEventId: `conformance-unknown-cursor-${randomToken()}` }, {});
    const s = opened.stream;
    if (!s) {
      c.skip(["EVT-12"], `no cursor to resume: GET /v1/events with an unknown Last-Event-ID answered ${said(opened.exchange)}`);
      return;
    }
    let cursor: string | undefined;
    let id: string | undefined;
    try {
      await s.until((x) => x.frames.length > 0, FIRST_FRAME_MS);
      cursor = s.frames[0]?.event === "reset" ? s.frames[0].id : undefined;
      if (!cursor) {
        c.skip(["EVT-12"], "no cursor to resume: the stream opened with an unknown Last-Event-ID sent no reset frame with an id (EVT-6 judges it)");
        return;
      }
      // Events after the cursor: a generation's creation (and its changes) on the open stream.
      const body = { ...c.fact("priced")[0]!.body };
      body.prompt = `${String(body.prompt ?? "")} (${randomToken()})`;
      const submit = await c.post("/v1/generations", body, "EVT-12", { headers: { "idempotency-key": `conformance-${randomToken()}` } });
      id = typeof submit.json?.id === "string" ? submit.json.id : undefined;
      if (!id) {
        c.skip(["EVT-12"], `no event to follow the cursor: the submit answered ${submit.status} ${errorCodeOf(submit.json) ?? ""}`);
        return;
      }
      const gen = id;
      if (!(await s.until((x) => framesOf(x, gen).length > 0, FIRST_FRAME_MS))) {
        c.skip(["EVT-12"], `no event to follow the cursor: ${gen}'s creation did not come on the stream within ${FIRST_FRAME_MS / 1000} s (EVT-11 judges it)`);
        return;
      }
    } finally {
      s.close();
    }
    if (!cursor || !id) return;

    if (!(await c.passTime(seconds, ["EVT-12"], what))) return;
    const resumed = await c.target.openStream({ rule: "EVT-12", lastEventId: cursor }, {});
    const r = resumed.stream;
    if (!r) {
      c.fail("EVT-12", `resuming from a cursor ${days} days old answered ${said(resumed.exchange)}; a cursor that cannot be resumed gets 200 with reset first`, resumed.exchange);
      return;
    }
    try {
      // Which frame comes first is EVT-6's (and a repeat EVT-9's): here, a reset or the events since.
      const gen = id;
      await r.until((x) => x.frames.some((f) => f.event === "reset") || framesOf(x, gen).length > 0, FIRST_FRAME_MS);
      const reset = r.frames.find((f) => f.event === "reset");
      if (reset) {
        c.expect(reset.data?.reason === "cursor_expired", "EVT-12", `a cursor the server issued, whose events are older than the ${days} days of history kept, got reset ${JSON.stringify(reset.data?.reason)}; expected cursor_expired (cursor_unknown is for ids never issued, corrupt or of another stream)`, resumed.exchange);
      } else if (framesOf(r, id).length > 0) {
        c.pass("EVT-12", `the server kept more than ${days} days: the events since the cursor came again`);
      } else {
        const sent = r.frames.map((f) => f.event).join(", ");
        c.fail("EVT-12", `resuming from a cursor older than the ${days} days of history sent ${sent ? `only ${sent}` : "no frame"} within ${FIRST_FRAME_MS / 1000} s: neither reset (cursor_expired) nor the events since it (${id}'s), which were lost without a reset`, resumed.exchange);
      }
    } finally {
      r.close();
    }
  },
};
