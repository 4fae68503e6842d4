// The heartbeat: a stream opened at the start of the run must have carried a comment by its
// end (the contract's interval plus slack), or the check waits for one, in real time (the
// server's timer: no clock move hastens it) within what is left of --max-wait.
import { streamLimits } from "../../../contract/index.ts";
import type { Check } from "../../facts/check.ts";
import { errorCodeOf, said } from "../../target/exchange.ts";

/** Slack on top of the contract's heartbeat interval (network, timers). */
const HEARTBEAT_SLACK_S = 3;

export const heartbeatStart: Check = {
  name: "heartbeat (opening)",
  rules: ["EVT-8"],
  // Opened with the main key once it is known to work.
  needs: { uses: ["whoami"] },
  provides: ["heartbeat"],
  when: "first",
  async run(c) {
    if (c.settings.options.quick) {
      c.notLearnt("heartbeat", "skipped by --quick (it waits up to the heartbeat interval in real time)");
      return;
    }
    const { stream, exchange } = await c.target.openStream({ rule: "EVT-8" }, {});
    if (stream) c.learn("heartbeat", stream);
    // Busy (the key's streams are open elsewhere) or not offered now: no fault of the stream's.
    else if (exchange.status === 429 || (exchange.status === 503 && errorCodeOf(exchange.json) === "service_unavailable")) c.notLearnt("heartbeat", `GET /v1/events answered ${said(exchange)}`);
    else c.cannotLearn("heartbeat", "EVT-3", `GET /v1/events answered ${said(exchange)}, not a 200 text/event-stream`, exchange);
  },
};

export const heartbeatEnd: Check = {
  name: "heartbeat",
  rules: ["EVT-8"],
  needs: { facts: ["heartbeat"] },
  when: "over the run",
  async run(c) {
    const s = c.fact("heartbeat");
    const limit = streamLimits().heartbeatSeconds;
    const deadline = s.openedAt + (limit + HEARTBEAT_SLACK_S) * 1000;
    const left = Math.max(0, deadline - Date.now());
    const seconds = Math.ceil(left / 1000);
    // A wait in real time (the server's timer), within what is left of --max-wait.
    if (s.commentTimes.length === 0 && !c.timeAllows(seconds, ["EVT-8"], `the heartbeat's ${limit} s (+${HEARTBEAT_SLACK_S} s) since the stream opened`, true)) {
      s.close();
      return;
    }
    const got = s.commentTimes.length > 0 || await c.target.waitReal(seconds, `up to ${seconds} s for a heartbeat comment on the event stream (--quick skips this check)`, s.until((x) => x.commentTimes.length > 0, left));
    s.close();
    c.expect(got, "EVT-8", `no heartbeat comment within ${limit} s (+${HEARTBEAT_SLACK_S} s) of opening the stream${s.ended ? " (the stream ended)" : ""}`, s.opened);
  },
};
