// Newest-first paging of an account's timeline (state/timeline.ts): the generations, the
// credit ledger and the library's assets, ordered by creation time, then id. The cursor
// names the last record returned, so a record created or removed between pages shifts
// nothing. A page finds its place by binary search and reads only the records it answers
// (and those it skips as not visible), whatever the number of records kept.
import type { Ctx } from "./context.ts";
import type { Refusal } from "../domain/refusal.ts";
import type { Dated, Timeline } from "../state/timeline.ts";
import { makeCursor, readCursor, readLimit } from "./paging.ts";

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * Up to `limit` visible records strictly older than the position `after` (`<time>:<id>`,
 * newest first; from the newest when undefined), and whether a visible one is left beyond.
 */
export function pageOf<T extends Dated>(
  timeline: Timeline<T> | undefined,
  after: string | undefined,
  limit: number,
  visible: (record: T) => boolean = always,
): { items: T[]; more: boolean } {
  const items: T[] = [];
  if (!timeline) return { items, more: false };
  let i = timeline.size - 1;
  if (after !== undefined) {
    const colon = after.indexOf(":");
    i = timeline.countOlder(Number(after.slice(0, colon)), after.slice(colon + 1)) - 1;
  }
  for (; i >= 0 && items.length < limit; i--) {
    const r = timeline.at(i)!;
    if (visible(r)) items.push(r);
  }
  for (; i >= 0; i--) if (visible(timeline.at(i)!)) return { items, more: true };
  return { items, more: false };
}

const always = () => true;

/** The request's page (its `cursor` and `limit`) of `timeline`, newest first, with the next cursor. */
export function newestFirst<T extends Dated>(ctx: Ctx, timeline: Timeline<T> | undefined, visible?: (record: T) => boolean): Page<T> | Refusal {
  const limit = readLimit(ctx.query);
  if (typeof limit !== "number") return limit;
  const epoch = ctx.hub.state.epoch;
  const after = readCursor(ctx.query, epoch);
  if (after !== undefined && typeof after !== "string") return after;
  const { items, more } = pageOf(timeline, after, limit, visible);
  return { items, next_cursor: nextCursor(epoch, items, more) };
}

/** The cursor naming the page's last record, when there is more; null at the end. */
export function nextCursor(epoch: string, items: readonly Dated[], more: boolean): string | null {
  const last = items.at(-1);
  return more && last ? makeCursor(epoch, `${last.created_at}:${last.id}`) : null;
}
