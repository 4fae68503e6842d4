// A generation keeps its type wherever it is read (GEN-1, EVT-1): the type is what was
// submitted, so every record of it (a submit's 202 and its replays, its read, a page of the
// list, the batch status read) and every frame of the event stream says the same `type`.
import type { Cited, Exchange } from "../../target/exchange.ts";
import type { Frame } from "../../target/stream.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { generationRecordsOf } from "./records.ts";
import { Remembered } from "./remembered.ts";

/** Generations remembered with the type first read. */
export const TYPES_REMEMBERED = 100_000;

function watch(): InvariantWatch {
  const first = new Remembered<{ type: string; cite: Cited }>(TYPES_REMEMBERED);
  const out: InvariantFinding[] = [];
  const judged = new Set<string>();

  function read(id: string, type: unknown, rule: string, cite: Cited, where: string): void {
    if (typeof type !== "string") return;
    judged.add(rule);
    const before = first.get(id);
    if (!before) return first.set(id, { type, cite: citedLater(cite) });
    if (before.type === type || out.length >= 20) return;
    out.push({
      ...broke(rule, `generation ${id} was read as type ${before.type} (${before.cite.request}), then as ${type} (${where}): a generation keeps the type it was submitted with`),
      cite: { ...cite, steps: [{ step: `type ${before.type}`, cited: before.cite }, { step: `type ${type}`, cited: citedLater(cite) }] },
    });
  }

  return {
    exchange(ex: Exchange) {
      for (const r of generationRecordsOf(ex)) read(r.id, r.type, "GEN-1", ex.cite, ex.cite.request ?? `${ex.method} ${ex.path}`);
    },
    frame(frame: Frame, opened: Exchange) {
      if (frame.event !== "generation.status_changed" || typeof frame.data?.id !== "string") return;
      read(frame.data.id, frame.data.type, "EVT-1", opened.cite, `a frame${frame.id ? ` (id ${frame.id})` : ""} of ${opened.cite.request}`);
    },
    findings() {
      return out.length > 0 ? out : [...judged].map((r) => held(r));
    },
  };
}

export const generationType: Invariant = { name: "a generation keeps its type wherever it is read", rules: ["GEN-1", "EVT-1"], watch };
