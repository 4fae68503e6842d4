// Paging parameters (`cursor`, `limit`) with the bounds read from the contract, and
// opaque cursors that name a position, tamper-evident and tied to the state's epoch.
import { deref, schema, type JsonObject } from "../../contract/document.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import { base64url, fnv, fromBase64url } from "../state/util.ts";

const limitSchema = deref<JsonObject>(schema("PageLimit"));
export const LIMIT_MIN = Number(limitSchema.minimum);
export const LIMIT_MAX = Number(limitSchema.maximum);
export const LIMIT_DEFAULT = Number(limitSchema.default);

export function readLimit(query: URLSearchParams): number | Refusal {
  const raw = query.get("limit");
  if (raw === null) return LIMIT_DEFAULT;
  const n = /^-?[0-9]{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) {
    return refuse("invalid_limit", { details: [{ field: "limit", reason: "wrong_type", message: "limit must be an integer" }] });
  }
  if (n < LIMIT_MIN || n > LIMIT_MAX) {
    return refuse("invalid_limit", { details: [{ field: "limit", reason: "out_of_range", message: `limit must be between ${LIMIT_MIN} and ${LIMIT_MAX}` }] });
  }
  return n;
}

// The last cursor made in each state (by its epoch: a hub's, a sandbox's): a list polled
// page after page names the same position again, and the sandboxes of one simulator,
// polled in turn, do not push each other's out.
const lastCursors = new Map<string, { position: string; cursor: string }>();
/** States whose last cursor is kept (an epoch is a state's, made anew on reset). */
const EPOCHS_KEPT = 256;

export function makeCursor(epoch: string, position: string): string {
  const last = lastCursors.get(epoch);
  if (last !== undefined && last.position === position) return last.cursor;
  const cursor = `${base64url(position)}.${fnv(`${epoch}|cursor|${position}`)}`;
  if (last === undefined && lastCursors.size >= EPOCHS_KEPT) lastCursors.clear();
  lastCursors.set(epoch, { position, cursor });
  return cursor;
}

/** The position a cursor names; undefined when absent; a refusal when it is not one of ours. */
export function readCursor(query: URLSearchParams, epoch: string): string | undefined | Refusal {
  const raw = query.get("cursor");
  if (raw === null) return undefined;
  const bad = refuse("invalid_cursor", { details: [{ field: "cursor", reason: "invalid", message: "cursor is not a next_cursor of this list" }] });
  const dot = raw.lastIndexOf(".");
  if (dot <= 0) return bad;
  const position = fromBase64url(raw.slice(0, dot));
  if (position === undefined || fnv(`${epoch}|cursor|${position}`) !== raw.slice(dot + 1)) return bad;
  return position;
}
