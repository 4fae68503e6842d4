// DONE is final (ST-5), and a deletion keeps a DONE generation's status (ST-3): once any
// read of a generation has shown it DONE (its read, the list, the batch status read, a
// submit's replay, a title change), no later read shows it at another status. A FAILED
// generation may still turn DONE (a late result, ST-4), so only DONE is held. The
// answers are judged in the order they came; an event stream is judged on its own, in the
// order of its frames (a stream's reader may lag behind the answers read beside it, and a
// resumed stream replays older changes).
import type { Exchange } from "../../target/exchange.ts";
import type { Frame } from "../../target/stream.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { generationRecordsOf } from "./records.ts";
import { Remembered } from "./remembered.ts";

const RULE = "ST-5";
/** Generations remembered as DONE (the oldest forgotten beyond it: the watch's memory is bounded). */
export const DONE_REMEMBERED = 100_000;
function watch(): InvariantWatch {
  /** Generations an answer showed DONE, with the answer that showed it. */
  const done = new Remembered<Exchange["cite"]>(DONE_REMEMBERED);
  /** Per stream (its opening exchange), the generations a frame showed DONE. */
  const doneInStream = new WeakMap<Exchange, Set<string>>();
  const out: InvariantFinding[] = [];
  let judged = 0;
  return {
    exchange(ex) {
      for (const r of generationRecordsOf(ex)) {
        judged++;
        const first = done.get(r.id);
        if (r.status === "DONE") {
          if (!first) done.set(r.id, citedLater(ex.cite));
        } else if (first && out.length < 20) {
          out.push({ ...broke(RULE, `generation ${r.id} was read DONE, then ${r.status} (${ex.method} ${ex.path.split("?")[0]}): DONE is final`), cite: { ...ex.cite, steps: [{ step: "read DONE", cited: first }, { step: `read ${r.status}`, cited: ex.cite }] } });
        }
      }
    },
    frame(frame: Frame, opened: Exchange) {
      if (frame.event !== "generation.status_changed" || typeof frame.data?.id !== "string" || typeof frame.data?.status !== "string") return;
      judged++;
      let seen = doneInStream.get(opened);
      if (!seen) doneInStream.set(opened, (seen = new Set()));
      const { id, status } = frame.data as { id: string; status: string };
      if (status === "DONE") {
        if (seen.size < DONE_REMEMBERED) seen.add(id);
      } else if (seen.has(id) && out.length < 20) {
        out.push({ ...broke(RULE, `the event stream showed generation ${id} DONE, then a frame${frame.id ? ` (id ${frame.id})` : ""} with ${status}: DONE is final`), cite: opened.cite });
      }
    },
    findings() {
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const doneIsFinal: Invariant = { name: "DONE is final, wherever a generation is read", rules: [RULE], watch };
