// The event stream without creating anything: it opens, unknown types are refused, an
// unknown Last-Event-ID gets `reset` first (and its fresh id resumes), the per-key
// stream limit. Numbers come from the contract (streamLimits()).
import { streamLimits } from "../../../contract/index.ts";
import type { EventStream } from "../../target/stream.ts";
import { randomToken } from "../../kit/ids.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const FIRST_FRAME_MS = 5_000;
const QUIET_MS = 750;

export const streamBasics: Check = {
  name: "event stream: opening, types, reset, resume of a fresh id",
  rules: ["EVT-3", "EVT-10", "EVT-6", "EVT-2"],
  needs: { uses: ["models"] },
  async run(c) {
    const { stream, exchange } = await c.target.openStream({ rule: "EVT-3" }, {});
    if (c.unavailable(exchange, ["EVT-3", "EVT-10", "EVT-6", "EVT-2"])) return;
    c.expect(stream !== undefined, "EVT-3", `GET /v1/events answered ${exchange.status} ${errorCodeOf(exchange.json) ?? ""}, not a 200 text/event-stream`, exchange);
    stream?.close();

    const known = (c.known("models") ?? []).find((m) => typeof m.type === "string")?.type ?? "video";
    const typed = await c.target.openStream({ rule: "EVT-10", query: `?types=${encodeURIComponent(known)}` }, {});
    c.expect(typed.stream !== undefined, "EVT-10", `types=${known} answered ${typed.exchange.status}`, typed.exchange);
    typed.stream?.close();
    const unknown = await c.target.openStream({ rule: "EVT-10", query: `?types=conformance_unknown_type` }, {});
    c.target.deliberate(unknown.exchange);
    unknown.stream?.close();
    c.refusal(unknown.exchange, "invalid_request", "EVT-10", "types with an unknown generation type");

    // An id the server never issued: 200, then `reset` (cursor_unknown) first.
    const reset = await c.target.openStream({ rule: "EVT-6", lastEventId: `conformance-unknown-cursor-${randomToken()}` }, {});
    if (!reset.stream) {
      c.fail("EVT-6", `an unknown Last-Event-ID answered ${reset.exchange.status} ${errorCodeOf(reset.exchange.json) ?? ""}; reset is not an error, the answer is 200`, reset.exchange);
      return;
    }
    await reset.stream.until((s) => s.frames.length > 0, FIRST_FRAME_MS);
    const first = reset.stream.frames[0];
    reset.stream.close();
    if (!first) {
      c.fail("EVT-6", `no frame within ${FIRST_FRAME_MS / 1000} s of presenting an unknown Last-Event-ID; reset comes first`, reset.exchange);
      return;
    }
    if (!c.expect(first.event === "reset", "EVT-6", `the first frame after an unknown Last-Event-ID is ${first.event}, not reset`, reset.exchange)) return;
    c.expect(first.data?.reason === "cursor_unknown", "EVT-6", `reset reason ${JSON.stringify(first.data?.reason)} for an id never issued; expected cursor_unknown`, reset.exchange);
    c.expect(first.data?.catch_up === "/v1/generations/status", "EVT-6", `reset catch_up ${JSON.stringify(first.data?.catch_up)}`, reset.exchange);
    if (!first.id) return;
    // The reset's fresh id is a cursor the stream resumes from.
    const resumed = await c.target.openStream({ rule: "EVT-6", lastEventId: first.id }, {});
    if (resumed.stream) {
      await resumed.stream.until((s) => s.frames.length > 0, QUIET_MS);
      resumed.stream.close();
      const again = resumed.stream.frames.find((f) => f.event === "reset");
      c.expect(!again, "EVT-6", "the fresh id of a reset frame does not resume: another reset came", resumed.exchange);
    } else c.fail("EVT-6", `resuming from the reset's id answered ${resumed.exchange.status}`, resumed.exchange);
  },
};

export const streamLimit: Check = {
  name: "event stream: streams per key",
  rules: ["EVT-12", "ERR-3"],
  async run(c: CheckContext) {
    const max = streamLimits().maxStreamsPerKey;
    const mine: EventStream[] = [];
    try {
      let refusedEarly: number | undefined;
      while (c.target.openStreams.size < max) {
        const { stream, exchange } = await c.target.openStream({ rule: "EVT-12" }, {});
        if (!stream) {
          if (c.unavailable(exchange, ["EVT-12"])) return;
          if (exchange.status === 429 && errorCodeOf(exchange.json) === "too_many_streams") {
            refusedEarly = c.target.openStreams.size + 1;
            break;
          }
          c.fail("EVT-12", `opening stream ${c.target.openStreams.size + 1} of ${max} answered ${exchange.status} ${errorCodeOf(exchange.json) ?? ""}`, exchange);
          return;
        }
        mine.push(stream);
      }
      if (refusedEarly !== undefined) {
        c.note("EVT-12", `stream ${refusedEarly} was already refused: the key holds streams elsewhere`);
      } else {
        const extra = await c.target.openStream({ rule: "EVT-12" }, {});
        extra.stream?.close();
        if (!c.refusal(extra.exchange, "too_many_streams", "EVT-12", `stream ${max + 1} of one key`)) return;
        c.expect(extra.exchange.headers.get("retry-after") !== null, "ERR-3", "a 429 too_many_streams without Retry-After", extra.exchange);
      }
      // Closing one frees a place (the server may take a moment to notice).
      const freed = mine.pop();
      if (!freed) return;
      freed.close();
      for (let attempt = 0; attempt < 6; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 150 * (attempt + 1)));
        const again = await c.target.openStream({ rule: "EVT-12" }, {});
        if (again.stream) {
          again.stream.close();
          c.pass("EVT-12");
          return;
        }
        if (!(again.exchange.status === 429 && errorCodeOf(again.exchange.json) === "too_many_streams")) {
          c.fail("EVT-12", `reopening after closing a stream answered ${again.exchange.status}`, again.exchange);
          return;
        }
      }
      c.fail("EVT-12", "still too_many_streams 3 s after one of the streams was closed");
    } finally {
      for (const s of mine) s.close();
    }
  },
};
