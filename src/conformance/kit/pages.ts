// Pages stay exact while records are created between page reads (seed, Paging: "ordered
// newest first ... Pages do not overlap and lose nothing at a boundary"). A first page is
// read, a record is created (it goes to the head: newest first), then the next page is
// read with the first page's `next_cursor`: the cursor is still good, and the page holds
// exactly the records that followed the first page before the creation. A server whose
// cursor is an offset serves the first page's last record again; one whose cursor names
// the list's state refuses it.
import { errorCodeOf, type Exchange } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

export interface PageProbe {
  /** The collection's path (`/v1/generations`). */
  path: string;
  /** What the collection holds, for messages (`generations`). */
  what: string;
  /** Page size of the walk. */
  size: number;
  first: Exchange;
  /** The records that follow the first page, as they were before the creation. */
  next: string[];
  /** A record's identity (its `id`; a ledger row, which has no id the seed names, whole). */
  key(record: unknown): string;
}

const keysOf = (ex: Exchange, key: (r: unknown) => string): string[] => (Array.isArray(ex.json?.data) ? ex.json.data.map(key) : []);

/** A record's `id`. */
export const byId = (r: unknown): string => String((r as { id?: unknown })?.id);
/** A record as its JSON text. */
export const whole = (r: unknown): string => JSON.stringify(r);

/**
 * Reads the head of the collection (or takes `head`, its newest records as read just
 * before) and its first page (of 2 records, or 1 when it holds fewer than 4): undefined,
 * with the reason noted on `rule`, when it holds too few records for a page boundary.
 */
export async function firstPage(c: CheckContext, path: string, what: string, rule: string, key: (r: unknown) => string = byId, head?: string[]): Promise<PageProbe | undefined> {
  const read = head ? undefined : await c.get(`${path}?limit=4`, rule);
  const records = head ?? keysOf(read!, key);
  const size = records.length >= 4 ? 2 : records.length >= 2 ? 1 : 0;
  if ((read && read.status !== 200) || size === 0) {
    c.skip([rule], `${what}: fewer than 2 records${read ? ` (${read.status})` : ""}: no page boundary to hold while a record is created`);
    return undefined;
  }
  const first = await c.get(`${path}?limit=${size}`, rule);
  if (first.status !== 200 || typeof first.json?.next_cursor !== "string") {
    c.fail(rule, `${what}: a first page of ${size} of ${records.length} or more records answered ${first.status} with next_cursor ${JSON.stringify(first.json?.next_cursor)}`, first);
    return undefined;
  }
  return { path, what, size, first, next: records.slice(size, 2 * size), key };
}

/** Reads the page after `probe.first` (records `created` since) and holds it to the records that followed before. */
export async function nextPage(c: CheckContext, probe: PageProbe, created: string, rule: string): Promise<void> {
  const { path, what, size, first, key } = probe;
  const ex = await c.get(`${path}?limit=${size}&cursor=${encodeURIComponent(first.json.next_cursor)}`, rule);
  const when = `after ${created} between the page reads`;
  if (ex.status !== 200 || !Array.isArray(ex.json?.data)) {
    c.fail(rule, `${what}: the next_cursor of the first page answered ${ex.status} ${errorCodeOf(ex.json) ?? ""} ${when}; a cursor stays good while records are created`, ex);
    return;
  }
  const got = keysOf(ex, key);
  const before = keysOf(first, key);
  const again = got.filter((k) => before.includes(k));
  const lost = probe.next.filter((k) => !got.includes(k));
  const strange = got.filter((k) => !probe.next.includes(k) && !before.includes(k));
  if (again.length > 0) c.fail(rule, `${what}: pages overlap ${when}: ${again.map(short).join(", ")} of page 1 came again on page 2`, ex);
  else if (lost.length > 0) c.fail(rule, `${what}: records lost at a page boundary ${when}: ${lost.map(short).join(", ")} followed page 1 and are not on page 2${strange.length ? ` (it holds ${strange.map(short).join(", ")})` : ""}`, ex);
  else c.expect(got.join("\n") === probe.next.join("\n"), rule, `${what}: page 2 ${when} holds ${got.map(short).join(", ")}, not the records that followed page 1 (${probe.next.map(short).join(", ")}), newest first`, ex);
}

function short(k: string): string {
  return k.length > 80 ? `${k.slice(0, 77)}...` : k;
}
