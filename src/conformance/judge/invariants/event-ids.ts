// No repeat in an event stream, over its whole life (EVT-9): a frame's id is an opaque
// account cursor (never parsed or compared for order), so what can be held is that no
// stream sends one id twice, and that a stream resumed with `Last-Event-ID` sends neither
// that frame again nor any frame that came before it in the stream where it was received.
// `reset` frames carry a fresh id and are judged like any other.
import type { Exchange } from "../../target/exchange.ts";
import type { Frame } from "../../target/stream.ts";
import { broke, held } from "../answer-checks/check.ts";
import type { Invariant, InvariantFinding, InvariantWatch } from "./invariant.ts";
import { Remembered } from "./remembered.ts";

const RULE = "EVT-9";
/** Frame ids remembered over the run (where each came: its stream and its place there). */
export const IDS_REMEMBERED = 100_000;

interface Place {
  stream: Exchange;
  index: number;
}

function lastEventIdOf(opened: Exchange): string | undefined {
  const headers = opened.record.sent.headers;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === "last-event-id");
  return name === undefined ? undefined : headers[name];
}

function watch(): InvariantWatch {
  /** Where each id came, by credential label (an id is an account's cursor). */
  const places = new Map<string, Remembered<Place>>();
  /** Per stream: frames counted and the ids it sent. */
  const streams = new WeakMap<Exchange, { count: number; ids: Set<string>; after?: Place }>();
  const out: InvariantFinding[] = [];
  let judged = 0;
  const fail = (message: string, opened: Exchange) => {
    if (out.length < 20) out.push({ ...broke(RULE, message), cite: opened.cite });
  };
  return {
    exchange() {},
    frame(frame: Frame, opened: Exchange) {
      if (frame.id === undefined || frame.id === "") return;
      judged++;
      let byLabel = places.get(opened.label);
      if (!byLabel) places.set(opened.label, (byLabel = new Remembered<Place>(IDS_REMEMBERED)));
      let s = streams.get(opened);
      if (!s) {
        const from = lastEventIdOf(opened);
        const after = from === undefined ? undefined : byLabel.get(from);
        streams.set(opened, (s = { count: 0, ids: new Set(), ...(after ? { after } : {}) }));
        if (from !== undefined && frame.id === from) fail(`a stream resumed with Last-Event-ID ${from} sent that frame again`, opened);
      } else if (s.ids.has(frame.id)) {
        fail(`the stream sent the frame id ${frame.id} twice`, opened);
      }
      const earlier = byLabel.get(frame.id);
      if (s.after && earlier && earlier.stream === s.after.stream && earlier.index <= s.after.index) {
        fail(`a stream resumed with Last-Event-ID sent frame ${frame.id} again, which came before that id in the stream it was read from`, opened);
      }
      if (s.ids.size < IDS_REMEMBERED) s.ids.add(frame.id);
      if (!earlier) byLabel.set(frame.id, { stream: opened, index: s.count });
      s.count++;
    },
    findings() {
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const eventIds: Invariant = { name: "no event stream repeats a frame, across resumes", rules: [RULE], watch };
