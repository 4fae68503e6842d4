// Everything the seed marks "not shown", read from the `x-not-shown` annotations of the
// contract with the place each one sits at, so the docs list cannot drift from it; and the
// same for the request inputs the seed gives no bound (`x-no-bound`).
import { METHODS, contract, type Json, type JsonObject } from "../contract/index.ts";
import { derefIn } from "./json.ts";
import { operationRoute, schemaRoute } from "./routes.ts";

export interface Gap {
  /** JSON pointer of the annotated node in the bundle. */
  pointer: string;
  /** The seed's words, as the contract quotes them. */
  quote: string;
  /** Where it applies, for a reader (Markdown). */
  where: string;
  /** Group for the list (operation, schema, security scheme, ...). */
  group: "API" | "Operations" | "Schemas" | "Responses" | "Credentials";
}

const escapePointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The annotations that record a gap: one the seed marks "not shown", an input it gives no bound. */
export type GapKind = "x-not-shown" | "x-no-bound";

function collect(node: Json | undefined, path: string[], kind: GapKind, out: { path: string[]; quote: string }[]): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    node.forEach((child, k) => collect(child, [...path, String(k)], kind, out));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === kind) {
      for (const quote of Array.isArray(value) ? value : [value]) out.push({ path, quote: String(quote) });
    } else {
      collect(value, [...path, key], kind, out);
    }
  }
}

/** The raw annotations: JSON path (as keys) and quote. */
export function gapAnnotations(doc: JsonObject = contract, kind: GapKind = "x-not-shown"): { path: string[]; quote: string }[] {
  const out: { path: string[]; quote: string }[] = [];
  collect(doc, [], kind, out);
  return out;
}

function opLabel(doc: JsonObject, group: "paths" | "webhooks", key: string, method: string): string {
  const op = derefIn(doc, (doc[group] as JsonObject)[key])[method] as JsonObject;
  const title = group === "webhooks" ? `Webhook \`${key}\` (${method.toUpperCase()}, the server fetches it)` : `\`${method.toUpperCase()} ${key}\``;
  return `[${title}](op:${String(op.operationId)})`;
}

function partLabel(rest: string[]): string {
  if (rest.length === 0) return "";
  if (rest[0] === "requestBody") return ", request body";
  if (rest[0] === "responses") return `, response ${rest[1]}${rest[2] === "content" ? " body" : ""}`;
  if (rest[0] === "parameters") return `, parameter ${rest[1]}`;
  return `, ${rest.join(".")}`;
}

function schemaLabel(doc: JsonObject, name: string, rest: string[]): string {
  const link = `[\`${name}\`](schema:${name})`;
  if (rest.length === 0) return `Schema ${link}`;
  const parts: string[] = [];
  let node: Json | undefined = (((doc.components as JsonObject).schemas as JsonObject)[name]) as Json;
  for (let k = 0; k < rest.length; k++) {
    const key = rest[k]!;
    const child: Json | undefined = node && typeof node === "object" ? (node as Record<string, Json>)[key] : undefined;
    if (key === "properties" && rest[k + 1] !== undefined) {
      parts.push(`field \`${rest[k + 1]}\``);
      node = child && typeof child === "object" ? (child as Record<string, Json>)[rest[k + 1]!] : undefined;
      k++;
      continue;
    }
    if ((key === "anyOf" || key === "oneOf") && rest[k + 1] !== undefined) {
      const item = child && typeof child === "object" ? (child as Json[])[Number(rest[k + 1])] : undefined;
      const value = item && typeof item === "object" && !Array.isArray(item) ? (item as JsonObject).const : undefined;
      parts.push(value !== undefined ? `value \`${String(value)}\`` : `${key} item ${rest[k + 1]}`);
      node = item;
      k++;
      continue;
    }
    parts.push(key);
    node = child;
  }
  return `Schema ${link}, ${parts.join(", ")}`;
}

/** Operations whose responses use the response component `name`. */
function usersOfResponse(doc: JsonObject, name: string): { link: string; status: string }[] {
  const ref = `#/components/responses/${escapePointer(name)}`;
  const users: { link: string; status: string }[] = [];
  for (const group of ["paths", "webhooks"] as const) {
    for (const [key, raw] of Object.entries((doc[group] as JsonObject | undefined) ?? {})) {
      const item = derefIn(doc, raw);
      for (const method of METHODS) {
        const op = item[method] as JsonObject | undefined;
        if (!op) continue;
        for (const [status, r] of Object.entries((op.responses as JsonObject) ?? {})) {
          if ((r as JsonObject)?.$ref === ref) users.push({ link: `[${method.toUpperCase()} ${key}](op:${String(op.operationId)})`, status });
        }
      }
    }
  }
  return users;
}

/** Every gap with a readable place and a link (`op:` / `schema:` links, see the guides). */
export function gaps(doc: JsonObject = contract, kind: GapKind = "x-not-shown"): Gap[] {
  return gapAnnotations(doc, kind).map(({ path, quote }) => {
    const pointer = "#/" + path.map(escapePointer).join("/");
    const [top, a, b, ...rest] = path;
    if (top === "info") return { pointer, quote, group: "API", where: "The API as a whole (versioning)" };
    if (top === "paths" || top === "webhooks") {
      if (b === undefined) {
        const item = derefIn(doc, (doc[top] as JsonObject)[a!]);
        const ops = METHODS.filter((m) => item[m]).map((m) => opLabel(doc, top, a!, m));
        return { pointer, quote, group: "Operations", where: `Path \`${a}\` (${ops.join(", ")})` };
      }
      return { pointer, quote, group: "Operations", where: opLabel(doc, top, a!, b) + partLabel(rest) };
    }
    if (top === "components" && a === "schemas") return { pointer, quote, group: "Schemas", where: schemaLabel(doc, b!, rest) };
    if (top === "components" && a === "securitySchemes") {
      return { pointer, quote, group: "Credentials", where: `Security scheme \`${b}\`` };
    }
    if (top === "components" && a === "responses") {
      const users = usersOfResponse(doc, b!);
      const statuses = [...new Set(users.map((u) => u.status))].join(", ");
      const usedBy =
        users.length === 0
          ? ""
          : users.length <= 3
            ? `, used by ${users.map((u) => u.link).join(", ")}`
            : `, the ${statuses} answer of ${users.length} operations`;
      return { pointer, quote, group: "Responses", where: `Response \`${b}\`${usedBy}` };
    }
    throw new Error(`${kind} at ${pointer}: no reader-facing place is known for this location; teach src/docs/gaps.ts`);
  });
}

/** Checks that every `op:`/`schema:` target a gap names exists (used by the builder). */
export function assertGapLinks(list: Gap[], doc: JsonObject = contract): void {
  for (const g of list) {
    for (const m of g.where.matchAll(/\]\((op|schema):([^)]+)\)/g)) {
      if (m[1] === "op") operationRoute(m[2]!, doc);
      else schemaRoute(m[2]!, doc);
    }
  }
}

export interface GapGroup {
  quote: string;
  /** The places it applies to, merged ("Schema X, values `a`, `b`"). */
  places: string[];
}

/** Gaps grouped by the seed's words, each with every place it applies to. */
export function groupedGaps(list: Gap[] = gaps()): GapGroup[] {
  const groups = new Map<string, Gap[]>();
  for (const g of list) groups.set(g.quote, [...(groups.get(g.quote) ?? []), g]);
  return [...groups].map(([quote, members]) => {
    const places: string[] = [];
    const values = new Map<string, string[]>();
    for (const m of members) {
      const value = /^(.*), value (`[^`]*`)$/.exec(m.where);
      if (value) {
        if (!values.has(value[1]!)) places.push(value[1]!);
        values.set(value[1]!, [...(values.get(value[1]!) ?? []), value[2]!]);
      } else if (!places.includes(m.where)) {
        places.push(m.where);
      }
    }
    // "X, request body" says nothing more when X itself is listed.
    const whole = new Set(places);
    const kept = places.filter((p) => !/, (request body|response .*)$/.test(p) || !whole.has(p.replace(/, (request body|response .*)$/, "")));
    return {
      quote,
      places: kept.map((p) => {
        const v = values.get(p);
        return v ? `${p}, value${v.length > 1 ? "s" : ""} ${v.join(", ")}` : p;
      }),
    };
  });
}
