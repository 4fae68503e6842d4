// Addresses inside the rendered reference (Redoc 3, hash routing): `#/<tag>` for a tag,
// `#/<tag>/<operationId>` for an operation or webhook, `#/schemas/<Name>` for a schema
// component, all lower-cased. The browser test opens every one of these and checks the
// page it lands on, so a change of Redoc's routing fails a test instead of breaking links.
import { METHODS, contract, type JsonObject } from "../contract/document.ts";
import { derefIn } from "./json.ts";

/** The page of the reference, relative to the site root. */
export const REFERENCE_PAGE = "reference.html";
/** The tag under which Redoc lists every schema component. */
export const SCHEMAS_TAG = "Schemas";

export function redocSlug(text: string): string {
  return text
    .toString()
    .toLowerCase()
    .replace(/\s+/g, "-")
    .replace(/&/g, "-and-")
    .replace(/--+/g, "-")
    .replace(/^-+/, "")
    .replace(/-+$/, "");
}

export interface ReferenceOperation {
  operationId: string;
  method: string;
  /** Path template, or the webhook name for a webhook. */
  path: string;
  tag: string;
  summary: string;
  webhook: boolean;
  route: string;
}

/** Every operation and webhook of the document with its route in the reference. */
export function referenceOperations(doc: JsonObject = contract): ReferenceOperation[] {
  const list: ReferenceOperation[] = [];
  for (const [group, webhook] of [
    ["paths", false],
    ["webhooks", true],
  ] as const) {
    for (const [path, raw] of Object.entries((doc[group] as JsonObject | undefined) ?? {})) {
      const item = derefIn(doc, raw);
      for (const method of METHODS) {
        const op = item[method] as JsonObject | undefined;
        if (!op) continue;
        const tag = String(((op.tags as string[] | undefined) ?? [])[0] ?? "");
        const operationId = String(op.operationId);
        list.push({
          operationId,
          method: method.toUpperCase(),
          path,
          tag,
          summary: String(op.summary ?? operationId),
          webhook,
          route: `#/${redocSlug(tag)}/${redocSlug(operationId)}`,
        });
      }
    }
  }
  return list;
}

export function operationRoute(operationId: string, doc: JsonObject = contract): string {
  const found = referenceOperations(doc).find((o) => o.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId} in the contract`);
  return found.route;
}

export function schemaRoute(name: string, doc: JsonObject = contract): string {
  const schemas = ((doc.components as JsonObject).schemas as JsonObject) ?? {};
  if (!(name in schemas)) throw new Error(`No schema ${name} in the contract`);
  return `#/${redocSlug(SCHEMAS_TAG)}/${redocSlug(name)}`;
}

export function tagRoute(tag: string, doc: JsonObject = contract): string {
  const tags = ((doc.tags as JsonObject[] | undefined) ?? []).map((t) => String(t.name));
  if (!tags.includes(tag) && tag !== SCHEMAS_TAG) throw new Error(`No tag ${tag} in the contract`);
  return `#/${redocSlug(tag)}`;
}

/** Every route the reference is known to serve (tags, operations, webhooks, schemas). */
export function knownRoutes(doc: JsonObject = contract): Set<string> {
  const routes = new Set<string>(["#/"]);
  for (const t of (doc.tags as JsonObject[] | undefined) ?? []) routes.add(`#/${redocSlug(String(t.name))}`);
  routes.add(`#/${redocSlug(SCHEMAS_TAG)}`);
  for (const o of referenceOperations(doc)) routes.add(o.route);
  for (const name of Object.keys(((doc.components as JsonObject).schemas as JsonObject) ?? {})) {
    routes.add(`#/${redocSlug(SCHEMAS_TAG)}/${redocSlug(name)}`);
  }
  return routes;
}
