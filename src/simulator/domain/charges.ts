// What a submit costs after the price: a free quota row of the type makes it free
// (`mode: unlimited` rows only with `promo_mode: queue`, as the seed says of the account
// record); with `promo_mode` the charge is by entitlement, never by rate.
import { refuse, type Refusal } from "./refusal.ts";
import type { Price } from "./pricing.ts";
import type { Account } from "../state/accounts.ts";

export interface Charge {
  charged_cc: number;
  /** Index of the free-quota row used, or -1. */
  free_quota: number;
}

export function chargeFor(account: Account, type: string, body: Record<string, unknown>, price: Price): Charge | Refusal {
  const promo = body.promo_mode !== undefined;
  const rows = account.free_quotas;
  const unlimited = body.promo_mode === "queue" ? rows.findIndex((q) => q.type === type && q.mode === "unlimited") : -1;
  const standard = rows.findIndex((q) => q.type === type && q.mode !== "unlimited" && (q.remaining ?? 0) > 0);
  if (promo) {
    if (unlimited >= 0) return { charged_cc: 0, free_quota: unlimited };
    if (standard >= 0) return { charged_cc: 0, free_quota: standard };
    return refuse("insufficient_credits", { message: `No entitlement covers promo_mode for type ${type}.` });
  }
  if (standard >= 0) return { charged_cc: 0, free_quota: standard };
  if (price.price_cc > account.balance_cc) {
    return refuse("insufficient_credits", { message: `The balance of ${account.balance_cc} cc does not cover ${price.price_cc} cc.` });
  }
  return { charged_cc: price.price_cc, free_quota: -1 };
}
