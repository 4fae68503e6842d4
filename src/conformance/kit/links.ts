// The contract's OpenAPI links, read and followed: which operations an answer's values
// feed (`openapi/*/links.yaml`, bundled under each response's `links`), and the request a
// link makes of an answer (its runtime expressions evaluated: `$response.body#/id`, a
// `{$...}` inside a request-body template, `$request.path.id`, ...). The stateful walk
// takes every id it sends from an answer this way, never from a table of its own.
import { deref, operationById, operations, type Json, type JsonObject, type Operation } from "../../contract/index.ts";

export interface Link {
  /** The link's name (its component's name when it is a `$ref`). */
  name: string;
  operationId: string;
  description: string;
  /** Parameter name (optionally `path.`, `query.` or `header.` qualified) to a runtime expression. */
  parameters: Record<string, string>;
  /** A request-body template: runtime expressions as whole values or `{$...}` inside text. */
  requestBody?: Json;
}

/** What a link is evaluated against: the answer and the request it answered. */
export interface Answered {
  method: string;
  /** The address of the request (absolute). */
  url: string;
  status: number;
  headers: Headers;
  body: unknown;
  request: { path: Record<string, string>; headers: Record<string, string>; body?: unknown };
}

function linkOf(key: string, raw: JsonObject): Link {
  const l = deref<JsonObject>(raw);
  const ref = typeof raw.$ref === "string" ? raw.$ref.split("/").pop() : undefined;
  return {
    name: ref ?? key,
    operationId: String(l.operationId),
    description: String(l.description ?? ""),
    parameters: Object.fromEntries(Object.entries((l.parameters as JsonObject | undefined) ?? {}).map(([k, v]) => [k, String(v)])),
    ...(l.requestBody !== undefined ? { requestBody: l.requestBody } : {}),
  };
}

/** The links an answer of `operationId` with `status` carries. */
export function linksOf(operationId: string, status: number): Link[] {
  const responses = (operationById(operationId).op.responses ?? {}) as JsonObject;
  const raw = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
  const response = raw === undefined ? undefined : deref<JsonObject>(raw);
  return Object.entries((response?.links as JsonObject | undefined) ?? {}).map(([k, v]) => linkOf(k, v as JsonObject));
}

/** Every link of the contract with the operation and status whose answer carries it. */
export function allLinks(): { source: Operation; status: string; link: Link }[] {
  const out: { source: Operation; status: string; link: Link }[] = [];
  for (const source of operations()) {
    for (const [status, raw] of Object.entries((source.op.responses ?? {}) as JsonObject)) {
      const links = (deref<JsonObject>(raw).links as JsonObject | undefined) ?? {};
      for (const [k, v] of Object.entries(links)) out.push({ source, status, link: linkOf(k, v as JsonObject) });
    }
  }
  return out;
}

/**
 * The kind of object an operation's answer is about, from its path: `generations`,
 * `library/assets`, `library/folders` (the id routes of a kind are the targets of the
 * links its answers carry).
 */
export function kindOf(operation: Operation): string {
  return operation.path.replace(/^\/v1\//, "").replace(/\/(\{[^}]+\}|status).*$/, "");
}

/** Reads a JSON pointer (`/data/0/id`) in a value. */
function at(value: unknown, pointer: string): Json | undefined {
  let node: any = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = node !== null && typeof node === "object" ? node[key] : undefined;
    if (node === undefined) return undefined;
  }
  return node as Json;
}

/**
 * A link into a page's first item (`/data/0/...`) followed for another item of the page:
 * the walk follows it for the object it made, wherever the page lists it.
 */
function forItem(pointer: string, item: number | undefined): string {
  return item === undefined ? pointer : pointer.replace(/^\/data\/0(?=\/|$)/, `/data/${item}`);
}

function header(headers: Headers | Record<string, string>, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase());
  return found?.[1];
}

/** One runtime expression (OpenAPI 3.1, "Runtime Expressions"); undefined when it names nothing. */
export function evaluate(expression: string, a: Answered, item?: number): Json | undefined {
  const [source, pointer] = expression.split("#", 2) as [string, string | undefined];
  if (source === "$url") return a.url;
  if (source === "$method") return a.method;
  if (source === "$statusCode") return a.status;
  if (source === "$response.body") return at(a.body, forItem(pointer ?? "", item));
  if (source === "$request.body") return at(a.request.body, pointer ?? "");
  const m = /^\$(request|response)\.(header|query|path)\.(.+)$/.exec(source);
  if (!m) return undefined;
  const [, side, where, name] = m as unknown as [string, string, string, string];
  if (side === "response") return where === "header" ? header(a.headers, name) : undefined;
  if (where === "header") return header(a.request.headers, name);
  if (where === "path") return a.request.path[name];
  return new URL(a.url).searchParams.get(name) ?? undefined;
}

/** A template with its expressions replaced: a whole `$...` value keeps its value's type, `{$...}` is written into the text. */
export function fill(template: Json | undefined, a: Answered, item?: number): Json | undefined {
  if (typeof template === "string") {
    if (template.startsWith("$")) return evaluate(template, a, item);
    return template.replace(/\{(\$[^}]+)\}/g, (_m, e: string) => String(evaluate(e, a, item) ?? ""));
  }
  if (Array.isArray(template)) return template.map((v) => fill(v, a, item) ?? null);
  if (template && typeof template === "object") return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fill(v, a, item) ?? null]));
  return template;
}

/** The request a link makes of an answer: the target's path with its parameters, its query, and the body template filled. */
export interface Linked {
  link: Link;
  operation: Operation;
  /** Path and query. */
  path: string;
  /** The values the link took from the answer, by parameter name. */
  values: Record<string, Json>;
  body?: Json;
  /** A parameter the answer did not give (the link cannot be followed). */
  missing?: string;
}

export function follow(link: Link, a: Answered, item?: number): Linked {
  const operation = operationById(link.operationId);
  const values: Record<string, Json> = {};
  const query = new URLSearchParams();
  let path = operation.path;
  let missing: string | undefined;
  for (const [qualified, expression] of Object.entries(link.parameters)) {
    const [where, name] = qualified.includes(".") ? (qualified.split(".", 2) as [string, string]) : [String(operation.parameters.find((p) => p.name === qualified)?.in ?? "path"), qualified];
    const value = evaluate(expression, a, item);
    if (value === undefined || value === null) {
      missing ??= name;
      continue;
    }
    values[name] = value;
    if (where === "path") path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else if (where === "query") query.set(name, String(value));
  }
  const body = link.requestBody === undefined ? undefined : fill(link.requestBody, a, item);
  const q = query.toString();
  return { link, operation, path: q ? `${path}?${q}` : path, values, ...(body !== undefined ? { body } : {}), ...(missing ? { missing } : {}) };
}

/** A valid body with a link's template merged in: the template's fields win, objects merge, arrays are replaced. */
export function merged(valid: Json | undefined, template: Json | undefined): Json | undefined {
  if (template === undefined) return valid;
  if (!valid || typeof valid !== "object" || Array.isArray(valid) || !template || typeof template !== "object" || Array.isArray(template)) return template;
  const out: Record<string, Json> = { ...valid };
  for (const [k, v] of Object.entries(template)) out[k] = merged(out[k], v) ?? null;
  return out;
}
