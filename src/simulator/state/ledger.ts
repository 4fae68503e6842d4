// The credit ledger (`state.ledger`, read by GET /v1/billing/transactions). Every
// change of a balance leaves a row, so the rows of an account always add up to its
// balance:
//   - the scenario's rows, or an opening row per account and a row per charged (and
//     refunded) generation of the scenario (scenario/seed.ts);
//   - `generation`: the debit when a submit is accepted (engine and submit handler);
//   - `refund`: the credit when a failed or cancelled generation gives its charge back;
//   - a balance set through the control interface: the difference, reason null.
// A generation that was free (free quota, promo entitlement) moves no credits and leaves
// no row; a late result after a refund keeps the refund (no new row).
// Rows are kept per account in creation order (a Timeline); beyond `retention.ledgerRows`
// the oldest fold into one opening row (domain/ledger.ts), so the sum stays the balance.
import { isoTime } from "./util.ts";

export interface LedgerEntry {
  id: string;
  account_id: string;
  amount_cc: number;
  generation_id: string | null;
  reason: string | null;
  created_at: number;
}

/** The closed vocabulary of `reason` (null where none applies). */
export const LEDGER_REASONS = ["generation", "refund"] as const;

/**
 * The published transaction record. A row whose generation is no longer kept (dropped by
 * retention) is old history: its `generation_id` is null, as the seed says of old rows.
 */
export function transactionRecord(e: LedgerEntry, kept: ReadonlyMap<string, unknown>): Record<string, unknown> {
  return { id: e.id, amount_cc: e.amount_cc, generation_id: linkOf(e, kept), reason: e.reason, created_at: isoTime(e.created_at) };
}

/** The row's generation link while that generation is kept, else null. */
export function linkOf(e: LedgerEntry, kept: { has(id: string): boolean }): string | null {
  return e.generation_id !== null && kept.has(e.generation_id) ? e.generation_id : null;
}
