// Request validation in the API's words: ajv's errors mapped to the seed's reason table
// (`details[]` of the envelope, one detail per fault), and the `oneOf` branch a body's
// constant property chooses. Free of ajv's compiler, so the same mapping runs wherever
// the validators come from: compiled at run time (validator.ts: the simulator, the
// tests, the conformance suite) or ahead of time as standalone code (the reference
// docs' try-it panel, whose page may not `eval`: src/docs/console/).
import type { ErrorObject } from "ajv/dist/2020.js";
import { deref, pointer, schema, singleValue, type Json, type JsonObject } from "./document.ts";

/** A compiled validator: ajv's, or its standalone code (`errors` as ajv leaves them, `verbose` on). */
export interface CheckFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The validator of the schema at a JSON pointer of the bundle (`#/components/schemas/X`). */
export type ValidatorAt = (ref: string) => CheckFunction;


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
export function validateChosenWith(validatorAt: ValidatorAt, schemaName: string, body: unknown): Detail[] {
  const choice = choiceOf(schemaName);
  if (!choice) return toDetails(validateOrErrors(validatorAt(`#/components/schemas/${schemaName}`), body));
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

function validateOrErrors(fn: CheckFunction, value: unknown): ErrorObject[] | null {
  return fn(value) ? null : (fn.errors ?? []);
}
