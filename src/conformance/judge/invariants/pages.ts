// Pages do not overlap (PAGE-4), and a cursor is read (PAGE-2): the page a `next_cursor`
// gives holds none of the records of the page that gave it. The lists that page by cursor
// are newest first by a key that does not change (creation time, then id), so a record
// created or deleted between the two reads moves no record across the boundary; a page
// that holds the very records of the page before it (two or more, the same ids in the same
// order) is the cursor ignored, any other shared record is an overlap. Judged only between requests
// of one credential to the same list with the same filters (the query besides `cursor` and
// `limit`), on pages the server answered 200. A reset of the simulator forgets every cursor.
import type { Exchange } from "../../target/exchange.ts";
import { broke, held } from "../answer-checks/check.ts";
import { citedLater, type Invariant, type InvariantFinding, type InvariantWatch } from "./invariant.ts";
import { Remembered, resetsState } from "./remembered.ts";

/** Cursors remembered with the page that gave them (the oldest forgotten beyond it). */
export const CURSORS_REMEMBERED = 1_000;
/** The lists that page by cursor over records that keep their place. */
const PAGED = /^\/v1\/(?:generations|billing\/transactions|library\/assets)$/;

/** The list a request reads (its path and filters), its cursor, and the ids of its page. */
function pageOf(ex: Exchange): { list: string; cursor: string | null; ids: string[]; next: unknown } | undefined {
  if (ex.method !== "GET" || ex.status !== 200 || ex.json === null || typeof ex.json !== "object" || !Array.isArray(ex.json.data)) return undefined;
  const url = new URL(ex.path, "http://x");
  if (!PAGED.test(url.pathname)) return undefined;
  const cursors = url.searchParams.getAll("cursor");
  if (cursors.length > 1) return undefined;
  const filters = [...url.searchParams].filter(([n]) => n !== "cursor" && n !== "limit").sort(([a], [b]) => a.localeCompare(b));
  const ids = (ex.json.data as unknown[]).map((r) => (r as { id?: unknown })?.id).filter((id): id is string => typeof id === "string");
  return { list: `${ex.label} ${url.pathname}?${new URLSearchParams(filters)}`, cursor: cursors[0] ?? null, ids, next: ex.json.next_cursor };
}

function watch(): InvariantWatch {
  const gave = new Remembered<{ ids: string[]; cite: Exchange["cite"] }>(CURSORS_REMEMBERED);
  const out: InvariantFinding[] = [];
  const judged = new Set<string>();
  return {
    exchange(ex, how) {
      if (resetsState(ex)) return void gave.clear();
      if (how.bare) return;
      const page = pageOf(ex);
      if (!page) return;
      const before = page.cursor === null ? undefined : gave.get(`${page.list} ${page.cursor}`);
      if (before && before.ids.length > 0 && page.ids.length > 0) {
        // One record again could be either; two or more, in the same order, are the page itself.
        const same = page.ids.length > 1 && page.ids.length === before.ids.length && page.ids.every((id, i) => id === before.ids[i]);
        const shared = page.ids.filter((id) => before.ids.includes(id));
        const rule = same ? "PAGE-2" : "PAGE-4";
        judged.add("PAGE-2");
        judged.add("PAGE-4");
        if (shared.length > 0 && out.length < 20) {
          const message = same
            ? `the page its next_cursor gave is the page that gave it (${page.ids.length} records, from ${page.ids[0]}): the cursor was not read`
            : `the page its next_cursor gave repeats ${shared.length} record(s) of the page that gave it (${shared.slice(0, 3).join(", ")}): pages do not overlap`;
          out.push({ ...broke(rule, message), cite: { ...ex.cite, steps: [{ step: "the page that gave the cursor", cited: before.cite }, { step: "the page the cursor gave", cited: ex.cite }] } });
        }
      }
      if (typeof page.next === "string") gave.set(`${page.list} ${page.next}`, { ids: page.ids, cite: citedLater(ex.cite) });
    },
    findings() {
      const failed = new Set(out.map((f) => f.rule));
      return [...out, ...[...judged].filter((r) => !failed.has(r)).map((r) => held(r))];
    },
  };
}

export const pages: Invariant = { name: "pages do not overlap, and a cursor is read", rules: ["PAGE-2", "PAGE-4"], watch };
