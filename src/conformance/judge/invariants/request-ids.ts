// A request id names one request (EP-2, ENV-4): the id a server generates when none was
// sent is its own, so no two answers to different requests carry the same X-Request-Id.
// Two answers may share one only when the same id was sent with both (a retry keeps its id).
import type { Exchange } from "../../target/exchange.ts";
import { isV1 } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { Remembered } from "./remembered.ts";

const RULE = "EP-2";
/** Request ids remembered over the run. */
export const REQUEST_IDS_REMEMBERED = 100_000;

function sentIdOf(ex: Exchange): string | undefined {
  const headers = ex.record.sent.headers;
  const name = Object.keys(headers).find((h) => h.toLowerCase() === "x-request-id");
  return name === undefined ? undefined : headers[name];
}

function watch(): InvariantWatch {
  const seen = new Remembered<{ sent: string | undefined; cite: Exchange["cite"] }>(REQUEST_IDS_REMEMBERED);
  const out: InvariantFinding[] = [];
  let judged = 0;
  return {
    exchange(ex, how) {
      if (how.bare || !isV1(ex)) return;
      const echoed = ex.headers.get("x-request-id");
      if (!echoed) return;
      judged++;
      const sent = sentIdOf(ex);
      const before = seen.get(echoed);
      if (!before) return seen.set(echoed, { sent, cite: citedLater(ex.cite) });
      if (sent !== undefined && sent === before.sent) return;
      if (out.length < 20) {
        out.push({
          ...broke(RULE, `two requests got the same X-Request-Id ${echoed} (${before.sent === undefined ? "none sent" : "another sent"} with the first, ${sent === undefined ? "none sent" : "another sent"} with this one): a generated id names one request`),
          cite: { ...ex.cite, steps: [{ step: "first answer", cited: before.cite }, { step: "second answer", cited: ex.cite }] },
        });
      }
    },
    findings() {
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const requestIds: Invariant = { name: "a request id names one request", rules: [RULE], watch };
