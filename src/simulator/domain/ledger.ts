// Writing the credit ledger: every change of a balance leaves a row (state/ledger.ts says
// which rows there are), so an account's rows always add up to its balance. Beyond the
// retention (`retention.ledgerRows` per account) the oldest rows fold into one opening row
// (no link, reason null) that holds their sum: the balance never changes when rows go.
import type { HubBase } from "../state/base.ts";
import type { LedgerEntry } from "../state/ledger.ts";
import { newTimeline, type Timeline } from "../state/timeline.ts";
import { entryOf } from "../state/util.ts";

export function recordLedger(base: HubBase, accountId: string, amount: number, generationId: string | null, reason: string | null): void {
  const now = base.clock.now();
  addLedgerRow(base, { id: base.ids.next("txn_", now), account_id: accountId, amount_cc: amount, generation_id: generationId, reason, created_at: now });
}

/** Adds a row at its place in its account's ledger, then folds what is beyond the retention. */
export function addLedgerRow(base: HubBase, row: LedgerEntry): void {
  const rows = entryOf(base.state.ledger, row.account_id, newTimeline<LedgerEntry>);
  rows.add(row);
  foldLedger(rows, base.retention.ledgerRows);
}

/**
 * Keeps at most `keep` rows: the oldest fold into one opening row with their sum, which
 * takes the place (time and id) of the newest row it folds, so a page read across it
 * neither repeats nor skips a row that is kept. A new row object: an export under way
 * holds the rows as they were.
 */
export function foldLedger(rows: Timeline<LedgerEntry>, keep: number): void {
  if (rows.size <= keep) return;
  let amount = 0;
  let newest: LedgerEntry | undefined;
  while (rows.size >= keep) {
    newest = rows.shift()!;
    amount += newest.amount_cc;
  }
  if (!newest) return;
  rows.unshift({ id: newest.id, account_id: newest.account_id, amount_cc: amount, generation_id: null, reason: null, created_at: newest.created_at });
}
