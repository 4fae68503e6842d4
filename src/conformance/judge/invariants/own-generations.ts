// A generation shows only to its own account (W-8, GEN-9, EVT-4): once one account's
// credential has been shown a generation (a record, a page of the list, the batch status
// read, a frame of its event stream), no other account's answer or stream shows it. Which
// account a credential belongs to is read from the trace itself, from its `GET
// /v1/whoami` answer (`user_id`): a credential that never asked is not judged, so keys,
// session and tokens of one account never count as two accounts, and a proxy's trace is
// judged the same way as a run's.
import type { Cited, Exchange } from "../../target/exchange.ts";
import { succeeded } from "../../target/exchange.ts";
import type { Frame } from "../../target/stream.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { generationRecordsOf } from "./records.ts";
import { Remembered } from "./remembered.ts";

/** Generations remembered, each with the credentials it was shown to. */
export const SHOWN_REMEMBERED = 100_000;
/** Credentials remembered per generation (the first answer to each); a leak shows within the first few. */
const LABELS_PER_GENERATION = 4;
/** Credentials whose account is remembered (a proxy may see many). */
const ACCOUNTS_REMEMBERED = 10_000;

/** Where a generation was shown: the rule that says it must not be shown there to another account. */
function ruleOf(where: "record" | "collection" | "frame"): string {
  return where === "frame" ? "EVT-4" : where === "record" ? "GEN-9" : "W-8";
}

interface Shown {
  rule: string;
  cite: Cited;
}

function watch(): InvariantWatch {
  /** The account (whoami's `user_id`) of each credential label that asked. */
  const accounts = new Remembered<string>(ACCOUNTS_REMEMBERED);
  /** Per generation, the first answer that showed it to each credential. */
  const shown = new Remembered<Map<string, Shown>>(SHOWN_REMEMBERED);

  function showTo(id: string, label: string, rule: string, cite: Cited): void {
    let by = shown.get(id);
    if (!by) shown.set(id, (by = new Map()));
    if (!by.has(label) && by.size < LABELS_PER_GENERATION) by.set(label, { rule, cite: citedLater(cite) });
  }

  return {
    exchange(ex: Exchange) {
      if (!succeeded(ex)) return;
      if (ex.method === "GET" && ex.path.split("?")[0] === "/v1/whoami") {
        if (typeof ex.json?.user_id === "string") accounts.set(ex.label, ex.json.user_id);
        return;
      }
      for (const r of generationRecordsOf(ex)) showTo(r.id, ex.label, ruleOf(r.in), ex.cite);
    },
    frame(frame: Frame, opened: Exchange) {
      if (frame.event !== "generation.status_changed" || typeof frame.data?.id !== "string") return;
      showTo(frame.data.id, opened.label, ruleOf("frame"), opened.cite);
    },
    findings() {
      // Judged at the end: a credential's whoami may come after the answers it was shown.
      const out: InvariantFinding[] = [];
      const rulesJudged = new Set<string>();
      for (const [id, by] of shown.entries()) {
        const owners = [...by].filter(([label]) => accounts.get(label) !== undefined);
        for (const [, s] of owners) rulesJudged.add(s.rule);
        const [first, ...rest] = owners;
        const other = rest.find(([label]) => accounts.get(label) !== accounts.get(first![0]));
        if (!first || !other || out.length >= 20) continue;
        const [firstLabel, firstShown] = first;
        const [otherLabel, otherShown] = other;
        out.push({
          ...broke(otherShown.rule, `generation ${id} was shown to account ${accounts.get(firstLabel)} (${firstShown.cite.request}) and to account ${accounts.get(otherLabel)} (${otherShown.cite.request}): a generation shows only to its own account`),
          cite: { ...otherShown.cite, steps: [{ step: `shown to ${accounts.get(firstLabel)}`, cited: firstShown.cite }, { step: `shown to ${accounts.get(otherLabel)}`, cited: otherShown.cite }] },
        });
      }
      if (out.length > 0) return out;
      return [...rulesJudged].map((r) => held(r));
    },
  };
}

export const ownGenerations: Invariant = { name: "a generation shows only to its own account", rules: ["W-8", "GEN-9", "EVT-4"], watch };
