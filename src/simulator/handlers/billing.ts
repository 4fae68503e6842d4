// Billing routes: the credit ledger (newest first, paged: a page reads only its own rows,
// however long the ledger) and the live subscription.
import { isRefusal, json, type Handler } from "../pipeline/context.ts";
import { transactionRecord } from "../state/ledger.ts";
import { newestFirst } from "../pipeline/listing.ts";
import { subscriptionRecord } from "../state/subscriptions.ts";

const listCreditTransactions: Handler = (ctx) => {
  const { state } = ctx.hub;
  const page = newestFirst(ctx, state.ledger.get(ctx.account!.id));
  if (isRefusal(page)) return page;
  return json(ctx, 200, { data: page.items.map((e) => transactionRecord(e, state.generations)), next_cursor: page.next_cursor });
};

// The bare record or null by default; `subscriptionForm: "wrapped"` answers the other
// form the seed allows, `{ subscription: <record or null> }`, so a frontend can try both.
const readBillingSubscription: Handler = (ctx) => {
  // `account.subscription` is shared with the session-only subscription actions.
  const live = ctx.account!.subscription;
  const record = live ? subscriptionRecord(live) : null;
  return json(ctx, 200, ctx.hub.options.subscriptionForm === "wrapped" ? { subscription: record } : record);
};

export const billingHandlers = { listCreditTransactions, readBillingSubscription };
