// The credit ledger (`state.ledger`, read by GET /v1/billing/transactions). Every
// change of a balance leaves a row, so the rows of an account always add up to its
// balance:
//   - an opening row per account with its starting balance (old history: no link, reason null);
//   - `generation`: the debit when a submit is accepted (engine and submit handler);
//   - `refund`: the credit when a failed or cancelled generation gives its charge back;
//   - a balance set through the control interface: the difference, reason null.
// A generation that was free (free quota, promo entitlement) moves no credits and leaves
// no row; a late result after a refund keeps the refund (no new row).
import type { Account } from "./accounts.ts";
import { IdMaker, isoTime } from "./util.ts";

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

/** How long before the clock's start the opening rows are dated. */
const OPENING_AGE_MS = 30 * 86_400_000;

export function openingLedger(accounts: Iterable<Account>, now: number): LedgerEntry[] {
  const ids = new IdMaker();
  const at = now - OPENING_AGE_MS;
  const rows: LedgerEntry[] = [];
  for (const a of accounts) {
    if (a.balance_cc !== 0) rows.push({ id: ids.next("txn_", at), account_id: a.id, amount_cc: a.balance_cc, generation_id: null, reason: null, created_at: at });
  }
  return rows;
}

/** The published transaction record. */
export function transactionRecord(e: LedgerEntry): Record<string, unknown> {
  return { id: e.id, amount_cc: e.amount_cc, generation_id: e.generation_id, reason: e.reason, created_at: isoTime(e.created_at) };
}
