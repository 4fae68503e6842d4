// Paging (seed: Paging parameters): bounds of `limit` (never clamped), the default,
// `invalid_cursor`, cursors passed back byte for byte, pages that neither overlap nor
// lose a record, newest first. Bounds are read from the contract.
import { deref, schema, type JsonObject } from "../../../contract/index.ts";
import { randomToken } from "../../kit/ids.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const limitSchema = deref<JsonObject>(schema("PageLimit"));
export const LIMIT_MIN = Number(limitSchema.minimum);
export const LIMIT_MAX = Number(limitSchema.maximum);
export const LIMIT_DEFAULT = Number(limitSchema.default);
const MAX_PAGES = 8;

const PAGE_RULES = ["PAGE-1", "PAGE-2", "PAGE-3", "PAGE-4"] as const;

/** The checks every paged collection gets. Returns false when the route is not offered. */
async function pageChecks(c: CheckContext, path: string, recordRule?: string): Promise<boolean> {
  // A first page of the largest size: the reference the walk is compared with.
  const all = await c.get(`${path}?limit=${LIMIT_MAX}`, "PAGE-3");
  if (c.unavailable(all, [...PAGE_RULES, ...(recordRule ? [recordRule] : [])])) return false;
  if (all.status !== 200 || !Array.isArray(all.json?.data)) return false;
  const reference: Record<string, any>[] = all.json.data;

  for (const bad of [LIMIT_MIN - 1, LIMIT_MAX + 1]) {
    const ex = await c.get(`${path}?limit=${bad}`, "PAGE-3");
    c.target.deliberate(ex);
    if (ex.status === 200) c.fail("PAGE-3", `limit=${bad} answered 200 with ${Array.isArray(ex.json?.data) ? ex.json.data.length : "?"} records: clamped instead of refused`, ex);
    else c.refusal(ex, "invalid_limit", "PAGE-3", `limit=${bad}`);
  }
  const one = await c.get(`${path}?limit=${LIMIT_MIN}`, "PAGE-3");
  if (one.status === 200 && Array.isArray(one.json?.data)) {
    c.expect(one.json.data.length <= LIMIT_MIN, "PAGE-3", `limit=${LIMIT_MIN} answered ${one.json.data.length} records`, one);
  } else c.fail("PAGE-3", `limit=${LIMIT_MIN} is inside the bounds but answered ${one.status}`, one);

  const plain = await c.get(path, "PAGE-3");
  if (plain.status === 200 && Array.isArray(plain.json?.data)) {
    const n = plain.json.data.length;
    if (reference.length > LIMIT_DEFAULT) c.expect(n === LIMIT_DEFAULT, "PAGE-3", `without limit the page has ${n} records; the default is ${LIMIT_DEFAULT}`, plain);
    else c.expect(n === reference.length, "PAGE-3", `without limit the page has ${n} of the ${reference.length} records (default ${LIMIT_DEFAULT})`, plain);
  }

  const bad = await c.get(`${path}?cursor=conformance-not-a-cursor-${randomToken()}`, "PAGE-2");
  c.target.deliberate(bad);
  c.refusal(bad, "invalid_cursor", "PAGE-2", "a cursor the server never issued");

  // Walk small pages and compare with the reference: no overlap, no loss, same order.
  if (reference.length < 2) {
    c.skip(["PAGE-4"], `${path} holds fewer than 2 records: no page boundary to walk`);
    return true;
  }
  const size = reference.length >= 3 * 2 ? 2 : 1;
  const seen: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  let lastEx;
  for (; pages < MAX_PAGES; pages++) {
    const ex = await c.get(`${path}?limit=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, "PAGE-4");
    lastEx = ex;
    if (ex.status !== 200 || !Array.isArray(ex.json?.data)) {
      c.fail(cursor ? "PAGE-1" : "PAGE-4", `a page ${cursor ? "asked with the next_cursor given" : ""} answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
      return true;
    }
    c.expect(ex.json.data.length <= size, "PAGE-3", `limit=${size} answered ${ex.json.data.length} records`, ex);
    const dup = ex.json.data.map((r: any) => String(r.id)).filter((id: string) => seen.includes(id));
    if (dup.length > 0) c.fail("PAGE-4", `pages overlap: ${dup.join(", ")} came again on page ${pages + 1}`, ex);
    for (const r of ex.json.data) if (!seen.includes(String(r.id))) seen.push(String(r.id));
    cursor = ex.json.next_cursor;
    if (cursor === null || cursor === undefined) break;
    if (ex.json.data.length === 0) {
      c.fail("PAGE-1", "an empty page with a next_cursor that is not null", ex);
      break;
    }
  }
  // Records created meanwhile (at the head, newest first) are not in the reference: left out.
  const referenceIds = reference.map((r) => String(r.id));
  const walked = seen.filter((id) => referenceIds.includes(id));
  const expected = referenceIds.slice(0, walked.length);
  const walkedAll = cursor === null || cursor === undefined;
  const reach = walkedAll ? referenceIds.length : referenceIds.indexOf(walked.at(-1) ?? "") + 1;
  const lost = referenceIds.slice(0, reach).filter((id) => !seen.includes(id));
  if (lost.length > 0) c.fail("PAGE-4", `records lost at a page boundary (limit=${size}): ${lost.slice(0, 5).join(", ")}`, lastEx);
  else if (walked.join() !== expected.join()) c.fail("PAGE-4", `walking pages of ${size} gives another order than one page of ${LIMIT_MAX}`, lastEx);
  else c.pass("PAGE-4");
  if (walkedAll && reference.length < LIMIT_MAX) {
    c.expect(walked.length === reference.length, "PAGE-1", `next_cursor null after ${walked.length} of ${reference.length} records`, lastEx);
  } else if (!walkedAll) c.pass("PAGE-1", `walked ${pages} pages passing next_cursor back unchanged`);

  // Newest first, where the records carry their creation time.
  const times = reference.map((r) => (typeof r.created_at === "string" ? Date.parse(r.created_at) : NaN));
  if (times.every((t) => Number.isFinite(t))) {
    const out = times.findIndex((t, i) => i > 0 && t > times[i - 1]!);
    c.expect(out < 0, "PAGE-4", `not newest first: record ${reference[out]?.id} was created after the one before it`, lastEx);
    c.note("PAGE-4", "order checked on `created_at` where records carry it (a field the seed does not name)");
  }
  return true;
}

export const paging: Check = {
  name: "paging of generations, transactions and library assets",
  rules: [...PAGE_RULES],
  async run(c) {
    await pageChecks(c, "/v1/generations");
    for (const [path, rule] of [["/v1/billing/transactions", "BILL-1"], ["/v1/library/assets", "LIB-1"]] as const) {
      const ok = await pageChecks(c, path, rule);
      if (!ok) c.log(`  ${path} not offered; its paging not checked`);
    }
  },
};
