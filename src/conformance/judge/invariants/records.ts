// The generation records an answer shows, for the invariants that follow a generation
// wherever it is read: a submit's 202 (a replay too), its read, a title change's reply, a
// page of the list and the batch status read (GEN-1: one record, the same shape on each).
import type { Exchange } from "../../target/exchange.ts";
import { succeeded } from "../../target/exchange.ts";

/** The routes that answer generation records: the list and a submit, the batch status read, one generation. */
const RECORD_ROUTE = /^\/v1\/generations(?:\/status|\/[^/?]+)?(?:\?|$)/;

export interface ShownRecord {
  id: string;
  status: string;
  type?: unknown;
  /** How the answer showed it: one record (a read, a submit) or in a collection (the list, the batch read). */
  in: "record" | "collection";
  /** Its field names, sorted: its shape. */
  fields: string[];
}

/** The generation records of a successful answer (a record, or a collection's `data`), each with an id and a status. */
export function generationRecordsOf(ex: Exchange): ShownRecord[] {
  if (!succeeded(ex) || !RECORD_ROUTE.test(ex.path) || ex.json === null || typeof ex.json !== "object") return [];
  const collection = Array.isArray(ex.json.data);
  const list: unknown[] = collection ? ex.json.data : [ex.json];
  const out: ShownRecord[] = [];
  for (const r of list as any[]) {
    if (typeof r?.id === "string" && typeof r?.status === "string") out.push({ id: r.id, status: r.status, type: r.type, in: collection ? "collection" : "record", fields: Object.keys(r).sort() });
  }
  return out;
}
