// A generation's record has one shape wherever it is read (GEN-1: "The record has the same
// shape everywhere", from the list, the read, the batch status read and the 202 of a submit,
// a replay's included): every record of one generation at one status shows the same field
// names. Compared at one status, because a field may come with a status (`output_urls`,
// `error`); `refunded` is left out, because it is "present once a refund applies", which
// may be later within the same status. A title change's reply is not among them (the
// requirements do not say what it holds).
import type { Cited } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { generationRecordsOf } from "./records.ts";
import { Remembered } from "./remembered.ts";

const RULE = "GEN-1";
/** Generations remembered with the shape first read at each status. */
export const SHAPES_REMEMBERED = 100_000;
/** A field whose presence may change within a status. */
const LATER = "refunded";

/** The routes the requirements name for the record: reads and submits, not a title change. */
const READS = new Set(["GET", "POST"]);

function watch(): InvariantWatch {
  const first = new Remembered<Map<string, { fields: string; cite: Cited }>>(SHAPES_REMEMBERED);
  const out: InvariantFinding[] = [];
  let judged = 0;
  return {
    exchange(ex) {
      if (!READS.has(ex.method)) return;
      for (const r of generationRecordsOf(ex)) {
        judged++;
        const fields = r.fields.filter((f) => f !== LATER).join(", ");
        let byStatus = first.get(r.id);
        if (!byStatus) first.set(r.id, (byStatus = new Map()));
        const before = byStatus.get(r.status);
        if (!before) {
          byStatus.set(r.status, { fields, cite: citedLater(ex.cite) });
          continue;
        }
        if (before.fields === fields || out.length >= 20) continue;
        const where = `${ex.method} ${ex.path.split("?")[0]}`;
        out.push({
          ...broke(RULE, `generation ${r.id} (${r.status}) was read with the fields [${before.fields}] (${before.cite.request}), then with [${fields}] (${where}): one record, the same shape wherever it is read`),
          cite: { ...ex.cite, steps: [{ step: `[${before.fields}]`, cited: before.cite }, { step: `[${fields}]`, cited: citedLater(ex.cite) }] },
        });
      }
    },
    findings() {
      return out.length > 0 ? out : judged > 0 ? [held(RULE)] : [];
    },
  };
}

export const recordShape: Invariant = { name: "a generation's record has one shape wherever it is read", rules: [RULE], watch };
