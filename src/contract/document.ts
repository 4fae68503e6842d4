// The bundled contract (generated/openapi.json) and lookups into it. Everything that
// serves or checks the API reads its rules from here, so a bound lives in one place.
import bundled from "../../generated/openapi.json" with { type: "json" };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  method: Method;
  /** Path template as in the document, e.g. `/v1/generations/{id}`. */
  path: string;
  operationId: string;
  /** The operation object, with path-level parameters merged in. */
  op: JsonObject;
  parameters: JsonObject[];
  /** Scope a credential needs (from the `api_key` requirement), `null` when none is named. */
  scope: string | null;
  /** Security schemes that may call it; empty for routes that need no credential. */
  schemes: string[];
}

export const contract = bundled as unknown as JsonObject;

/** Resolves a local `$ref` (`#/components/...`) once; other values pass through. */
export function deref<T = JsonObject>(node: unknown): T {
  let current = node as JsonObject;
  for (let i = 0; i < 20 && current && typeof current === "object" && typeof current.$ref === "string"; i++) {
    current = pointer(current.$ref as string) as JsonObject;
  }
  return current as T;
}

/**
 * The one value a schema allows: its `const`, or the value of an `enum` of one (the form
 * the text submit variant's `type` takes, see schemas/submit/TextSubmit.json).
 */
export function singleValue(schema: unknown): Json | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const s = deref(schema);
  if ("const" in s) return s.const;
  return Array.isArray(s.enum) && s.enum.length === 1 ? s.enum[0] : undefined;
}

// The bundle never changes, so each pointer is walked once: answer checks deref the same
// few hundred refs on every exchange.
const pointed = new Map<string, Json | undefined>();

/** Reads a JSON pointer (`#/a/b~1c`) in the bundle. */
export function pointer(ref: string): Json | undefined {
  if (pointed.has(ref)) return pointed.get(ref);
  if (!ref.startsWith("#")) throw new Error(`Only local refs are supported: ${ref}`);
  let node: Json | undefined = contract;
  for (const raw of ref.slice(2).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = node && typeof node === "object" ? (node as Record<string, Json>)[key] : undefined;
  }
  pointed.set(ref, node);
  return node;
}

let cache: Operation[] | undefined;

export function operations(): Operation[] {
  if (cache) return cache;
  const list: Operation[] = [];
  for (const [path, rawItem] of Object.entries(contract.paths as JsonObject)) {
    const item = deref(rawItem);
    const shared = ((item.parameters as Json[]) ?? []).map((p) => deref(p));
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (!op) continue;
      const own = ((op.parameters as Json[]) ?? []).map((p) => deref(p));
      const byKey = new Map<string, JsonObject>();
      for (const p of [...shared, ...own]) byKey.set(`${p.in}:${String(p.name).toLowerCase()}`, p);
      const security = (op.security as JsonObject[] | undefined) ?? [];
      const schemes = security.flatMap((req) => Object.keys(req));
      const keyScopes = security.find((req) => "api_key" in req)?.api_key as string[] | undefined;
      list.push({
        method,
        path,
        operationId: String(op.operationId),
        op,
        parameters: [...byKey.values()],
        scope: keyScopes && keyScopes.length > 0 ? keyScopes[0]! : null,
        schemes,
      });
    }
  }
  cache = list;
  return list;
}

const singular = new WeakMap<Operation, readonly string[]>();

/**
 * The query parameters of an operation that take one value (every one whose schema is not
 * an array): a request that repeats one of them is ambiguous.
 */
export function singularQueryParameters(operation: Operation): readonly string[] {
  let names = singular.get(operation);
  if (!names) {
    names = operation.parameters.filter((p) => p.in === "query" && deref<JsonObject>(p.schema).type !== "array").map((p) => String(p.name));
    singular.set(operation, names);
  }
  return names;
}

export function operationById(operationId: string): Operation {
  const found = operations().find((o) => o.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId} in the contract`);
  return found;
}

/** Finds the operation serving a concrete method and path (query excluded). */
export function matchOperation(method: string, path: string): { operation: Operation; params: Record<string, string> } | undefined {
  const segments = path.split("/");
  for (const route of router().get(`${method.toLowerCase()} ${segments.length}`) ?? []) {
    const params = matchSegments(route.segments, segments);
    if (params) return { operation: route.operation, params };
  }
  return undefined;
}

interface Route {
  operation: Operation;
  segments: string[];
}

let routes: Map<string, Route[]> | undefined;

/**
 * Operations grouped by method and number of segments, most literal segments first, so a
 * literal segment wins over a template (`/v1/generations/status` over `/{id}`).
 */
function router(): Map<string, Route[]> {
  if (routes) return routes;
  routes = new Map();
  for (const operation of operations()) {
    const segments = operation.path.split("/");
    const key = `${operation.method} ${segments.length}`;
    const list = routes.get(key) ?? [];
    list.push({ operation, segments });
    routes.set(key, list);
  }
  const literals = (r: Route) => r.segments.filter((s) => !s.startsWith("{")).length;
  for (const list of routes.values()) list.sort((a, b) => literals(b) - literals(a));
  return routes;
}

function matchSegments(t: string[], p: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < t.length; i++) {
    const seg = t[i]!;
    if (seg.startsWith("{") && seg.endsWith("}")) {
      if (p[i] === "") return undefined;
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(p[i]!);
      } catch {
        return undefined;
      }
    } else if (seg !== p[i]) {
      return undefined;
    }
  }
  return params;
}

/** A schema component by name. */
export function schema(name: string): JsonObject {
  const found = (contract.components as JsonObject).schemas as JsonObject;
  const s = found[name];
  if (!s) throw new Error(`No schema ${name} in the contract`);
  return s as JsonObject;
}
