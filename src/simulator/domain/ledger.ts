// Writing the credit ledger: every change of a balance leaves a row (state/ledger.ts says
// which rows there are), so an account's rows always add up to its balance.
import type { HubBase } from "../state/base.ts";

export function recordLedger(base: HubBase, accountId: string, amount: number, generationId: string | null, reason: string | null): void {
  const now = base.clock.now();
  base.state.ledger.push({ id: base.ids.next("txn_", now), account_id: accountId, amount_cc: amount, generation_id: generationId, reason, created_at: now });
}
