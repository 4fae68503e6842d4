// The heartbeat: a stream opened at the start of the run must have carried a comment by its
// end (the contract's interval plus slack), or the check waits for one.
import { streamLimits } from "../../../contract/index.ts";
import type { Check } from "../../facts/context.ts";

/** Slack on top of the contract's heartbeat interval (network, timers). */
const HEARTBEAT_SLACK_S = 3;

export const heartbeatStart: Check = {
  name: "heartbeat (opening)",
  rules: ["EVT-8"],
  async run(c) {
    if (c.settings.options.quick) {
      c.shared.heartbeat = { skip: "skipped by --quick (it waits up to the heartbeat interval in real time)" };
      return;
    }
    const { stream } = await c.target.openStream({ rule: "EVT-8" }, {});
    c.shared.heartbeat = { stream };
  },
};

export const heartbeatEnd: Check = {
  name: "heartbeat",
  rules: ["EVT-8"],
  async run(c) {
    const h = c.shared.heartbeat;
    if (h?.skip) {
      c.skip(["EVT-8"], h.skip);
      return;
    }
    const s = h?.stream;
    if (!s) return;
    const limit = streamLimits().heartbeatSeconds;
    const deadline = s.openedAt + (limit + HEARTBEAT_SLACK_S) * 1000;
    const left = Math.max(0, deadline - Date.now());
    const got = s.commentTimes.length > 0 || await c.target.waiting(`up to ${Math.ceil(left / 1000)} s for a heartbeat comment on the event stream (--quick skips this check)`, left / 1000, s.until((x) => x.commentTimes.length > 0, left));
    s.close();
    c.expect(got, "EVT-8", `no heartbeat comment within ${limit} s (+${HEARTBEAT_SLACK_S} s) of opening the stream${s.ended ? " (the stream ended)" : ""}`, s.opened);
  },
};
