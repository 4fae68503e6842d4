// Newest-first paging for the credit ledger and the library's assets, the same
// way the generation list pages: ordered by creation time, then id; the cursor names the
// last record returned, so a record created or removed between pages shifts nothing.
import type { Ctx } from "./context.ts";
import type { Refusal } from "../domain/refusal.ts";
import { makeCursor, readCursor, readLimit } from "./paging.ts";

export interface Dated {
  id: string;
  created_at: number;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

function newer(a: Dated, b: Dated): number {
  return b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** One page of `all` (any order), newest first, after the request's `cursor`, `limit` long. */
export function newestFirst<T extends Dated>(ctx: Ctx, all: Iterable<T>): Page<T> | Refusal {
  const limit = readLimit(ctx.query);
  if (typeof limit !== "number") return limit;
  const epoch = ctx.hub.state.epoch;
  const after = readCursor(ctx.query, epoch);
  if (after !== undefined && typeof after !== "string") return after;
  let rows = [...all];
  if (after !== undefined) {
    const colon = after.indexOf(":");
    const at = Number(after.slice(0, colon));
    const id = after.slice(colon + 1);
    rows = rows.filter((r) => r.created_at < at || (r.created_at === at && r.id < id));
  }
  rows.sort(newer);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const next_cursor = rows.length > limit && last ? makeCursor(epoch, `${last.created_at}:${last.id}`) : null;
  return { items, next_cursor };
}
