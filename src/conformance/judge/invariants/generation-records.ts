// GEN-1 and ST-5 wherever a generation shows: a submit's 202, the read, the list, the
// batch status read and the event stream. Its `type` is the same everywhere, and once a
// generation was shown DONE it is never shown otherwise (DONE is final; a late result may
// turn FAILED into DONE, never the reverse): over the reads in the order they were
// answered, and within each stream in the order of its frames (a stream resumed with
// Last-Event-ID replays history, so frames are not ordered against reads or other
// streams). A list served from a stale copy passes every check of one answer.
import { broke, held } from "../answer-checks/check.ts";
import type { Cited } from "../../target/exchange.ts";
import type { Invariant, InvariantFinding } from "./invariant.ts";

const STATUSES = new Set(["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING", "DONE", "FAILED"]);
const OPERATIONS = new Set(["submitGeneration", "readGeneration", "listGenerations", "readGenerationStatuses"]);

interface Shown {
  type: string;
  done: boolean;
  where: string;
}

/** The generation records in a JSON body: objects with an id, a type and a status of the table. */
function recordsIn(value: unknown, out: { id: string; type: string; status: string }[] = [], depth = 0): typeof out {
  if (depth > 4 || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    for (const item of value) recordsIn(item, out, depth + 1);
    return out;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.id === "string" && typeof o.type === "string" && typeof o.status === "string" && STATUSES.has(o.status)) out.push({ id: o.id, type: o.type, status: o.status });
  else for (const v of Object.values(o)) recordsIn(v, out, depth + 1);
  return out;
}

export const generationRecordsAgree: Invariant = {
  name: "a generation agrees wherever it is read",
  rules: ["GEN-1", "ST-5"],
  watch() {
    /** What the reads showed, by generation id. */
    const shown = new Map<string, Shown>();
    /** What each stream's frames showed, by stream, then by generation id. */
    const framed = new Map<unknown, Map<string, Shown>>();
    const findings: InvariantFinding[] = [];
    let again = 0;
    const fail = (rule: string, message: string, cite: Cited) => {
      if (findings.filter((f) => f.rule === rule).length < 5) findings.push({ ...broke(rule, message), cite });
    };
    const see = (record: { id: string; type: string; status: string }, where: string, cite: Cited, order: Map<string, Shown>) => {
      const before = order.get(record.id) ?? shown.get(record.id);
      if (before) {
        again++;
        if (before.type !== record.type) fail("GEN-1", `generation ${record.id} is of type ${before.type} in ${before.where} and ${record.type} in ${where}: a record has the same shape wherever it is read`, cite);
      }
      const ordered = order.get(record.id);
      if (ordered?.done && record.status !== "DONE") fail("ST-5", `generation ${record.id} was DONE in ${ordered.where}, then ${record.status} in ${where}: DONE is final`, cite);
      // Bounded: the first 10,000 generations of each order are followed.
      if ((!ordered || (record.status === "DONE" && !ordered.done)) && order.size < 10_000) order.set(record.id, { type: before?.type ?? record.type, done: record.status === "DONE", where });
    };
    return {
      exchange(ex, how) {
        if (how.bare || ex.status >= 300 || !ex.operation || !OPERATIONS.has(ex.operation.operationId)) return;
        for (const record of recordsIn(ex.json)) see(record, `${ex.method} ${ex.path}`, ex.cite, shown);
      },
      frame(frame, opened) {
        if (frame.event !== "generation.status_changed") return;
        let order = framed.get(opened);
        if (!order) framed.set(opened, (order = new Map()));
        for (const record of recordsIn(frame.data)) see(record, `a frame of ${opened.method} ${opened.path}`, opened.cite, order);
      },
      findings: () => (findings.length > 0 || again === 0 ? findings : [held("GEN-1"), held("ST-5")]),
    };
  },
};
