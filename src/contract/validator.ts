// JSON Schema 2020-12 validation against the bundled contract (ajv), shared by the
// simulator (requests), the tests and the conformance suite (responses).
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { contract, deref, pointer, schema, singleValue, type Json, type JsonObject, type Operation } from "./document.ts";

// ajv-formats is CommonJS with a default export; unwrap it the same way in Node and TS.
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => void;

const CONTRACT_ID = "https://generation-hub.local/openapi.json";

function createAjv(): Ajv2020 {
  // The document carries OpenAPI keywords (`openapi`, `x-...`) beside the schemas;
  // they are annotations here, so unknown keywords are not an error.
  // `verbose` gives each error its schema, so alternatives can be collapsed (see `collapse`).
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strictSchema: false, strictTypes: false, validateFormats: true });
  addFormats(ajv);
  // A shallow copy: its subschemas are the bundle's own objects, so `$ref` targets found
  // with `pointer()` are the objects ajv reports in `parentSchema`.
  ajv.addSchema({ ...(contract as object), $id: CONTRACT_ID });
  return ajv;
}

let shared: Ajv2020 | undefined;
export function ajv(): Ajv2020 {
  return (shared ??= createAjv());
}

const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at a JSON pointer of the bundle (`#/components/schemas/X`). */
export function validatorAt(ref: string): ValidateFunction {
  let fn = compiled.get(ref);
  if (!fn) {
    const got = ajv().getSchema(CONTRACT_ID + ref);
    if (!got) throw new Error(`No schema at ${ref}`);
    fn = got;
    compiled.set(ref, fn);
  }
  return fn;
}

export function schemaValidator(name: string): ValidateFunction {
  return validatorAt(`#/components/schemas/${name}`);
}

// ---------------------------------------------------------------------------
// Requests: refusals name the fields at fault (`details[]` of the envelope).

export interface Detail {
  field?: string;
  reason: string;
  message: string;
}

/** `/multi_prompt/0/duration` -> `multi_prompt.0.duration`. */
export function dottedPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) parts.push(extra);
  return parts.join(".");
}

const RANGE = new Set(["maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "maxItems", "minItems", "maxProperties", "minProperties"]);
const WRAPPERS = new Set(["anyOf", "oneOf", "allOf", "if", "then", "else"]);

/**
 * A failed `anyOf`/`oneOf` is one fault, not one per alternative: its branch errors
 * collapse into the alternative's own error (a closed set of constants becomes `enum`,
 * alternatives of required fields become `required`). Other wrappers (`if`, `allOf`)
 * add nothing beyond their leaves and are dropped.
 */
export function collapse(errors: readonly ErrorObject[]): ErrorObject[] {
  const alternatives = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const owns = (a: ErrorObject, e: ErrorObject) => a !== e && isInside(e, a);
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (WRAPPERS.has(e.keyword) && e.keyword !== "anyOf" && e.keyword !== "oneOf") continue;
    if (alternatives.some((a) => owns(a, e))) continue;
    if (e.keyword === "anyOf" || e.keyword === "oneOf") {
      const inner = errors.filter((x) => owns(e, x));
      if (inner.length > 0 && inner.every((x) => x.keyword === "const" || x.keyword === "enum")) {
        out.push({ ...e, keyword: "enum", message: "must be one of the allowed values" });
        continue;
      }
      const missing = inner.filter((x) => x.keyword === "required").map((x) => String((x.params as { missingProperty?: string }).missingProperty));
      if (inner.length > 0 && missing.length === inner.length) {
        out.push({ ...e, keyword: "required", params: { missingProperty: [...new Set(missing)].join(" or ") } });
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

/**
 * Whether an error comes from inside an alternative: at or below its instance, and
 * raised by a schema its branches contain or reach by `$ref`. ajv's `schemaPath` cannot
 * tell (it is relative to whichever function a `$ref` compiled into), so this compares
 * the error's `parentSchema` (ajv's `verbose` mode) with the branches' schema objects.
 */
function isInside(e: ErrorObject, alternative: ErrorObject): boolean {
  const under = e.instancePath === alternative.instancePath || e.instancePath.startsWith(alternative.instancePath + "/");
  if (!under || !e.parentSchema || !alternative.schema || typeof alternative.schema !== "object") return false;
  return reachableSchemas(alternative.schema as object).has(e.parentSchema as object);
}

const reachable = new WeakMap<object, WeakSet<object>>();

/** Every schema object inside a node or reachable from it through local `$ref`s. */
function reachableSchemas(root: object): WeakSet<object> {
  let found = reachable.get(root);
  if (found) return found;
  const seen = new Set<object>();
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/")) visit(pointer(value));
      else visit(value);
    }
  };
  visit(root);
  found = new WeakSet(seen);
  reachable.set(root, found);
  return found;
}

/** Maps ajv errors to the seed's reason table, one detail per fault. */
export function toDetails(errors: readonly ErrorObject[] | null | undefined): Detail[] {
  if (!errors) return [];
  const seen = new Set<string>();
  const details: Detail[] = [];
  for (const e of collapse(errors)) {
    const d = toDetail(e);
    const key = `${d.field}|${d.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(d);
  }
  return details;
}

function toDetail(e: ErrorObject): Detail {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
    case "dependentRequired": {
      // Alternatives ("a or b") name the first as the field and all in the message.
      const missing = String(params.missingProperty);
      const field = dottedPath(e.instancePath, missing.split(" or ")[0]);
      const label = dottedPath(e.instancePath, missing);
      return { field, reason: "required", message: `${label} is required` };
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const field = dottedPath(e.instancePath, name);
      return { field, reason: "unknown_field", message: `${field} is not a known field` };
    }
    case "false schema": {
      const field = dottedPath(e.instancePath);
      return { field, reason: "unknown_field", message: `${field} must not be present` };
    }
  }
  const field = dottedPath(e.instancePath);
  const label = field === "" ? "body" : field;
  const reason =
    e.keyword === "type" ? "wrong_type"
    : e.keyword === "enum" || e.keyword === "const" || e.keyword === "not" ? "not_allowed"
    : RANGE.has(e.keyword) ? "out_of_range"
    : e.keyword === "format" || e.keyword === "pattern" ? "bad_format"
    : e.keyword === "uniqueItems" ? "duplicate"
    : "invalid";
  const detail: Detail = { reason, message: `${label} ${e.message ?? "is not valid"}` };
  if (field !== "") detail.field = field;
  return detail;
}

/**
 * Validates a body against a schema whose `oneOf` branches are chosen by a constant
 * property (`type` of a submit, `grant_type` of a token request), so the refusal lists
 * the faults of the chosen branch only; a branch without a constant (the 3D variant)
 * takes every other value.
 */
export function validateChosen(schemaName: string, body: unknown): Detail[] {
  const choice = choiceOf(schemaName);
  if (!choice) return toDetails(validateOrErrors(schemaValidator(schemaName), body));
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return [{ reason: "wrong_type", message: "body must be a JSON object" }];
  }
  const { key } = choice;
  const value = (body as Record<string, unknown>)[key];
  if (value === undefined) return [{ field: key, reason: "required", message: `${key} is required` }];
  if (typeof value !== "string") return [{ field: key, reason: "wrong_type", message: `${key} must be a string` }];
  const branch = choice.byValue.get(value) ?? choice.fallback;
  if (!branch) {
    return [{ field: key, reason: "not_allowed", message: `${key} must be one of ${[...choice.byValue.keys()].join(", ")}` }];
  }
  return toDetails(validateOrErrors(validatorAt(branch.ref), body));
}

/** Which `oneOf` branch of a schema a body falls in, by its constant property. */
export function chosenBranch(schemaName: string, body: Record<string, unknown>): string | undefined {
  const choice = choiceOf(schemaName);
  if (!choice) return undefined;
  const value = body[choice.key];
  return ((typeof value === "string" ? choice.byValue.get(value) : undefined) ?? choice.fallback)?.name;
}

interface Branch {
  ref: string;
  name: string;
}

interface Choice {
  /** The property whose constant picks the branch (`type`, `grant_type`). */
  key: string;
  byValue: Map<string, Branch>;
  /** The branch without a constant, which takes every other value (the 3D variant). */
  fallback?: Branch;
}

const choices = new Map<string, Choice | null>();

/** How a schema's `oneOf` is chosen, worked out once per schema. */
function choiceOf(schemaName: string): Choice | undefined {
  let choice = choices.get(schemaName);
  if (choice === undefined) {
    const root = deref(schema(schemaName));
    const branches = (root.oneOf as JsonObject[] | undefined)?.map((b) => ({ ref: String(b.$ref), s: deref(b) }));
    if (!branches) {
      choice = null;
    } else {
      const key = discriminatorOf(branches.map((b) => b.s));
      const byValue = new Map<string, Branch>();
      let fallback: Branch | undefined;
      for (const b of branches) {
        const branch = { ref: b.ref, name: b.ref.split("/").pop()! };
        const value = constOf(b.s, key);
        if (typeof value === "string") byValue.set(value, branch);
        else fallback = branch;
      }
      choice = { key, byValue, fallback };
    }
    choices.set(schemaName, choice);
  }
  return choice ?? undefined;
}

function discriminatorOf(branches: JsonObject[]): string {
  const first = branches.find((b) => b.properties);
  for (const key of Object.keys((first?.properties as JsonObject) ?? {})) {
    if (branches.filter((b) => constOf(b, key) !== undefined).length >= branches.length - 1) return key;
  }
  throw new Error("oneOf branches share no constant property");
}

function constOf(branch: JsonObject, key: string): Json | undefined {
  return singleValue((branch.properties as JsonObject | undefined)?.[key]);
}

function validateOrErrors(fn: ValidateFunction, value: unknown): ErrorObject[] | null {
  return fn(value) ? null : (fn.errors ?? []);
}

// ---------------------------------------------------------------------------
// Responses: is this answer one the contract allows?

export interface Violation {
  where: string;
  message: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | undefined> | Headers;
  /** The raw body text (empty string for none). */
  body: string;
}

export function responseFor(operation: Operation, status: number): { key: string; response: JsonObject } | undefined {
  const responses = operation.op.responses as JsonObject;
  for (const key of [String(status), `${String(status)[0]}XX`, "default"]) {
    if (responses[key]) return { key, response: deref(responses[key]) };
  }
  return undefined;
}

/** Every way an answer departs from the contract: status, headers, media type, body. */
export function checkAnswer(operation: Operation, answer: Answer): Violation[] {
  const where = `${operation.method.toUpperCase()} ${operation.path} -> ${answer.status}`;
  const found = responseFor(operation, answer.status);
  if (!found) return [{ where, message: `status ${answer.status} is not declared` }];
  const { key, response } = found;
  // Validate schemas where they live (a response or header given by $ref lives under
  // components), so their own $refs resolve.
  const rawResponse = (operation.op.responses as JsonObject)[key] as JsonObject;
  const base = typeof rawResponse.$ref === "string"
    ? rawResponse.$ref
    : `#/paths/${encodePointer(operation.path)}/${operation.method}/responses/${key}`;
  const get = (name: string) =>
    answer.headers instanceof Headers ? (answer.headers.get(name) ?? undefined) : lowerKeys(answer.headers)[name.toLowerCase()];
  const violations: Violation[] = [];

  for (const [name, rawHeader] of Object.entries((response.headers as JsonObject) ?? {})) {
    const header = deref(rawHeader);
    const value = get(name);
    if (value === undefined) {
      if (header.required === true) violations.push({ where, message: `header ${name} is required` });
      continue;
    }
    const headerSchema = header.schema as JsonObject | undefined;
    if (!headerSchema) continue;
    const headerRef = (rawHeader as JsonObject).$ref;
    const fn = validatorAt(`${typeof headerRef === "string" ? headerRef : `${base}/headers/${encodePointer(name)}`}/schema`);
    const typed = coerceHeader(value, deref(headerSchema));
    if (!fn(typed)) violations.push({ where, message: `header ${name}: ${JSON.stringify(value)} ${fn.errors?.[0]?.message ?? "is not valid"}` });
  }

  const content = response.content as JsonObject | undefined;
  const mediaType = (get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!content) {
    if (answer.body.length > 0) violations.push({ where, message: "the answer has a body but none is declared" });
    return violations;
  }
  const declared = Object.keys(content);
  const match = declared.find((t) => t === mediaType) ?? declared.find((t) => t === "*/*" || (t.endsWith("/*") && mediaType.startsWith(t.slice(0, -1))));
  if (!match) {
    violations.push({ where, message: `content type ${JSON.stringify(mediaType)} is not among ${declared.join(", ")}` });
    return violations;
  }
  if (match === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      violations.push({ where, message: "the body is not JSON" });
      return violations;
    }
    const fn = validatorAt(`${base}/content/${encodePointer(match)}/schema`);
    if (!fn(parsed)) {
      for (const e of collapse(fn.errors ?? [])) violations.push({ where, message: `body${e.instancePath} ${e.message}` });
    }
  }
  return violations;
}

function coerceHeader(value: string, s: JsonObject): unknown {
  if ((s.type === "integer" || s.type === "number") && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return value;
}

function lowerKeys(h: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

export function encodePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
