// No charge exceeds the estimate of its body (PRICE-1: `price_cc` is a ceiling; PRICE-2:
// the estimate takes the submit's body; BILL-1: the ledger's rows are the charges),
// wherever the trace shows them: an estimate priced a body for a credential, a submit of
// that body by the same credential created a generation, and any page of the ledger read
// afterwards shows that generation's debit rows. Their sum may not go past the estimate.
// Bodies are paired without their `prompt`: the suite's own submits vary only the prompt
// (a fresh token each, so each is a new generation), and the requirements name no price
// computed from a prompt's text (a price row is per second or per clip). Refunds are not
// netted: the debit is the charge.
import type { Cited, Exchange } from "../../target/exchange.ts";
import { succeeded } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import { canonical } from "./bodies.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { Remembered } from "./remembered.ts";

const RULE = "PRICE-1";
/** Bodies priced, and generations submitted, remembered. */
export const CHARGES_REMEMBERED = 100_000;

/** The body's JSON as a key (keys sorted, `prompt` left out), or undefined when the request held no whole JSON object. */
function bodyKey(ex: Exchange): string | undefined {
  const { body, bodySize } = ex.record.sent;
  if (typeof body !== "string" || (bodySize !== undefined && bodySize > body.length)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const { prompt: _prompt, ...rest } = parsed as Record<string, unknown>;
  return `${ex.label} ${canonical(rest)}`;
}

const route = (ex: Exchange) => `${ex.method} ${ex.path.split("?")[0]}`;

function watch(): InvariantWatch {
  /** The highest price an estimate gave each body (the ceiling the charge is held to). */
  const estimates = new Remembered<{ price: number; cite: Cited }>(CHARGES_REMEMBERED);
  /** Generations whose body was estimated before the submit, with that estimate. */
  const submitted = new Remembered<{ price: number; estimate: Cited; submit: Cited }>(CHARGES_REMEMBERED);
  const judged = new Remembered<true>(CHARGES_REMEMBERED);
  let compared = 0;
  const out: InvariantFinding[] = [];
  return {
    exchange(ex: Exchange) {
      if (!succeeded(ex) || ex.json === null || typeof ex.json !== "object") return;
      const where = route(ex);
      if (where === "POST /v1/pricing/estimate" && Number.isInteger(ex.json.price_cc)) {
        const key = bodyKey(ex);
        const before = key === undefined ? undefined : estimates.get(key);
        if (key !== undefined && (!before || before.price < ex.json.price_cc)) estimates.set(key, { price: ex.json.price_cc, cite: citedLater(ex.cite) });
      } else if (where === "POST /v1/generations" && typeof ex.json.id === "string") {
        const key = bodyKey(ex);
        const estimate = key === undefined ? undefined : estimates.get(key);
        if (estimate && !submitted.get(ex.json.id)) submitted.set(ex.json.id, { price: estimate.price, estimate: estimate.cite, submit: citedLater(ex.cite) });
      } else if (where === "GET /v1/billing/transactions" && Array.isArray(ex.json.data)) {
        const debits = new Map<string, number>();
        for (const row of ex.json.data as any[]) {
          if (typeof row?.generation_id === "string" && Number.isInteger(row?.amount_cc) && row.amount_cc < 0) debits.set(row.generation_id, (debits.get(row.generation_id) ?? 0) - row.amount_cc);
        }
        for (const [id, charged] of debits) {
          const s = submitted.get(id);
          if (!s || judged.get(id)) continue;
          judged.set(id, true);
          compared++;
          if (charged <= s.price || out.length >= 20) continue;
          out.push({
            ...broke(RULE, `generation ${id} was charged ${charged} cc (its debit rows in the ledger); the estimate of its body said ${s.price} cc, a ceiling`),
            cite: { ...ex.cite, steps: [{ step: `estimated ${s.price} cc`, cited: s.estimate }, { step: "submitted", cited: s.submit }, { step: `charged ${charged} cc`, cited: citedLater(ex.cite) }] },
          });
        }
      }
    },
    findings() {
      return out.length > 0 ? out : compared > 0 ? [held(RULE)] : [];
    },
  };
}

export const chargeWithinEstimate: Invariant = { name: "no charge exceeds the estimate of its body", rules: [RULE], watch };
