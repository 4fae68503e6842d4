// The routes that take an object's id, by kind of object, read from the contract's links:
// an answer about a generation links to every operation its id feeds (read, batch read,
// report, title change), the library's lists to their items' content, title change, move,
// folder change and delete. Two routes take an id no link names, and are added with the
// reason: a result file's address (`output_urls` are used as given, never assembled, so
// no link builds it) and the folder a move goes to (`folder_id` of the move body).
import fc from "fast-check";
import { operationById, type Json, type Operation } from "../../contract/index.ts";
import { planFor, variantValues, type Known } from "./generate/plans.ts";
import { minimalValue, validValues } from "./generate/schema.ts";
import { allLinks, follow, kindOf, merged, type Answered } from "./links.ts";

export const GENERATIONS = "generations";
export const ASSETS = "library/assets";
export const FOLDERS = "library/folders";

export interface IdRoute {
  operation: Operation;
  /** How the route takes the id: the link that names it, or why it is added. */
  via: string;
  /** The path and body template for an id (null: no link builds it). */
  template?(id: string): { path: string; body?: Json };
}

/** An answer as the links read it, about one object: `id` at the root and as the page's first item. */
export function aboutId(id: string, url = "http://conformance.invalid"): Answered {
  return { method: "GET", url, status: 200, headers: new Headers(), body: { id, data: [{ id }] }, request: { path: {}, headers: {} } };
}

/** The routes that take the id of an object of `kind`, each once, in the contract's order. */
export function idRoutes(kind: string): IdRoute[] {
  const seen = new Set<string>();
  const out: IdRoute[] = [];
  for (const { source, link } of allLinks()) {
    if (kindOf(source) !== kind || seen.has(link.operationId)) continue;
    if (Object.keys(link.parameters).length === 0 && link.requestBody === undefined) continue; // a link without an id (the event stream)
    seen.add(link.operationId);
    out.push({ operation: operationById(link.operationId), via: `link ${link.name}`, template: (id) => follow(link, aboutId(id)) });
  }
  if (kind === FOLDERS) out.push({ operation: operationById("moveLibraryItems"), via: "folder_id of the move body (no link names it)", template: (id) => ({ path: "/v1/library/move", body: { item_ids: [], folder_id: id } }) });
  if (kind === GENERATIONS) out.push({ operation: operationById("downloadGenerationOutput"), via: "output_urls of the record (used as given: no link builds the address)" });
  return out;
}

/**
 * Valid bodies of an operation from the generator (the variants' smallest, then random
 * ones from `seed`), each confirmed by the contract's validator; empty when the
 * operation takes none.
 */
export function validBodies(operationId: string, known: Known, seed: number, count: number): Json[] {
  const plan = planFor(operationId, known);
  if ("skipped" in plan || !plan.body) return [];
  const variants = plan.body.variants.filter((v) => !v.unavailable);
  if (variants.length === 0) return [];
  const smallest = variants.map((v) => minimalValue(v.raw, variantValues(plan, v, known)));
  const random = fc.sample(fc.oneof(...variants.map((v) => validValues(v.raw, variantValues(plan, v, known)))), { seed, numRuns: count }) as Json[];
  return [...smallest, ...random].filter((b) => plan.body!.details(b).length === 0);
}

/** A valid body for the operation with a link's template (or the walk's own fields) merged in. */
export function bodyWith(operationId: string, known: Known, seed: number, template: Json | undefined): Json | undefined {
  const valid = validBodies(operationId, known, seed, 1)[0];
  return merged(valid, template);
}
