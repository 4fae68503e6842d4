// Values from the contract's schemas: fast-check arbitraries of valid values (biased to
// the edges), the notable valid values of every field (each bound at its edge, every enum
// value), and the one-fault changes that make a field invalid (each bound +-1, a value of
// each other JSON type, `null`, a value a lenient parser would coerce into a valid one, a
// value outside the set, a bad format, an unknown field, a missing required field), each
// with the reason of the seed's reason table it must be refused with. Bounds are read
// from the schemas, never retyped.
import fc from "fast-check";
import { deref, type Json, type JsonObject } from "../../../contract/index.ts";

/** A path into a JSON value: property names and array indices. */
export type Path = (string | number)[];

/** The dotted form the envelope's `details[].field` uses: `multi_prompt.0.duration`. */
export function dotted(path: Path): string {
  return path.join(".");
}

/** A schema node with the component it was reached through (`SubmitModel`), if any. */
export interface View {
  s: JsonObject;
  name?: string;
}

export function view(raw: unknown): View {
  let node = raw as JsonObject;
  let name: string | undefined;
  for (let i = 0; i < 20 && node && typeof node === "object" && typeof node.$ref === "string"; i++) {
    name = String(node.$ref).split("/").pop();
    node = deref(node);
  }
  return { s: node ?? {}, ...(name ? { name } : {}) };
}

/**
 * Values the schema cannot know: `known` ones the server has (a model id from the
 * catalog, an id of an object that exists, the 3D variant's `type`), the first of them
 * the one a smallest body takes, and `other` values it may take (ids nobody has).
 */
export interface Real {
  known: Json[];
  other?: fc.Arbitrary<Json>;
}

/** Real values for a field, by the component it refers to or its path (`ids.*`); undefined: the schema's own values. */
export type RealValues = (field: { name?: string; path: Path; s: JsonObject }) => Real | undefined;

/** `["multi_prompt", 0, "duration"]` -> `multi_prompt.*.duration`: how plans name a field. */
export function pattern(path: Path): string {
  return path.map((p) => (typeof p === "number" ? "*" : p)).join(".");
}

export function arbitraryOf(real: Real): fc.Arbitrary<Json> {
  const arbs: fc.Arbitrary<Json>[] = [];
  if (real.known.length > 0) arbs.push(fc.constantFrom(...real.known));
  if (real.other) arbs.push(real.other);
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

const JSON_TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"] as const;
type JsonType = (typeof JSON_TYPES)[number];

function typesOf(s: JsonObject): JsonType[] {
  if (Array.isArray(s.type)) return s.type as JsonType[];
  if (typeof s.type === "string") return [s.type as JsonType];
  if (s.properties || s.required) return ["object"];
  return [];
}

/** Properties of an object schema, its own and those of `allOf` parts. */
export function propertiesOf(s: JsonObject): Record<string, unknown> {
  const own = (s.properties as JsonObject | undefined) ?? {};
  const parts = ((s.allOf as unknown[]) ?? []).map((p) => propertiesOf(view(p).s));
  return Object.assign({}, ...parts, own);
}

export function requiredOf(s: JsonObject): string[] {
  const parts = ((s.allOf as unknown[]) ?? []).flatMap((p) => requiredOf(view(p).s));
  return [...new Set([...((s.required as string[]) ?? []), ...parts])];
}

/** The closed bounds of a number: `minimum`/`maximum`, or the next value inside an exclusive bound. */
function numberBounds(s: JsonObject, integer: boolean): { min?: number; max?: number } {
  const step = integer ? 1 : 0.001;
  const min = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + step : undefined;
  const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - step : undefined;
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/**
 * Any Unicode scalar value (every code point but the surrogate halves), one per character
 * of a string. fast-check's own `unit: "binary"` builds a table of them first, which costs
 * seconds; this costs nothing.
 */
const anyCharacter: fc.Arbitrary<string> = fc.oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff })).map((n) => String.fromCodePoint(n));

/** Strings of any characters, `length` counted in code points as JSON Schema counts them. */
export function anyText(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: anyCharacter, ...constraints });
}

/** Random strings: any code point, or printable ASCII, of a length the schema allows (kept short). */
function strings(minLength: number, maxLength: number | undefined): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength ?? 40, minLength + 40));
  return fc.oneof(anyText({ minLength, maxLength: max }), fc.string({ unit: "grapheme-ascii", minLength, maxLength: max }));
}

/** A string of exactly `length` code points (a two-byte letter: a length is characters, not bytes). */
export function stringOfLength(length: number): string {
  return "é".repeat(length);
}

/** fast-check arbitrary of values valid against the schema, biased to its edges. */
export function validValues(raw: unknown, real: RealValues, path: Path = []): fc.Arbitrary<Json> {
  const { s, name } = view(raw);
  const hooked = real({ name, path, s });
  if (hooked) return arbitraryOf(hooked);
  if ("const" in s) return fc.constant(s.const as Json);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as Json[]));
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return fc.oneof(...((s.oneOf ?? s.anyOf) as unknown[]).map((b) => validValues(b, real, path)));
  const types = typesOf(s);
  if (types.length === 0) return fc.constant(null);
  return fc.oneof(...types.map((t) => ofType(t, s, real, path)));
}

function ofType(type: JsonType, s: JsonObject, real: RealValues, path: Path): fc.Arbitrary<Json> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const { min, max } = numberBounds(s, true);
      const lo = min ?? Math.min(-1000, max ?? 0);
      const hi = max ?? Math.max(1_000_000, lo);
      return fc.oneof({ arbitrary: fc.constantFrom(lo, hi), weight: 1 }, { arbitrary: fc.integer({ min: Math.max(lo, Number.MIN_SAFE_INTEGER), max: Math.min(hi, Number.MAX_SAFE_INTEGER) }), weight: 3 });
    }
    case "number": {
      const { min, max } = numberBounds(s, false);
      const lo = min ?? -1e6;
      const hi = max ?? 1e6;
      return fc.oneof({ arbitrary: fc.constantFrom(lo, hi), weight: 1 }, { arbitrary: fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)), weight: 3 });
    }
    case "string": {
      if (s.format === "uuid") return fc.uuid();
      if (s.format === "uri") return fc.webUrl({ validSchemes: ["https"] });
      const minLength = typeof s.minLength === "number" ? s.minLength : 0;
      const maxLength = typeof s.maxLength === "number" ? s.maxLength : undefined;
      const edges = [minLength, ...(maxLength !== undefined ? [maxLength] : [])].map(stringOfLength);
      return fc.oneof({ arbitrary: fc.constantFrom(...edges), weight: 1 }, { arbitrary: strings(minLength, maxLength), weight: 4 });
    }
    case "array": {
      const minLength = typeof s.minItems === "number" ? s.minItems : 0;
      const maxItems = typeof s.maxItems === "number" ? s.maxItems : undefined;
      const item = validValues(s.items ?? {}, real, [...path, 0]);
      const random = fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(maxItems ?? 5, 5)) });
      if (maxItems === undefined || maxItems <= 5) return random;
      return fc.oneof({ arbitrary: fc.array(item, { minLength: maxItems, maxLength: maxItems }), weight: 1 }, { arbitrary: random, weight: 4 });
    }
    case "object": {
      const props = propertiesOf(s);
      const required = requiredOf(s).filter((k) => k in props);
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validValues(v, real, [...path, k])]));
      return fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Json>;
    }
  }
}

/** The smallest valid value: required fields only, each at its lower edge (or its first real value). */
export function minimalValue(raw: unknown, real: RealValues, path: Path = []): Json {
  const { s, name } = view(raw);
  const hooked = real({ name, path, s });
  if (hooked) return hooked.known.length > 0 ? hooked.known[0]! : fc.sample(hooked.other!, { seed: 1, numRuns: 1 })[0]!;
  if ("const" in s) return s.const as Json;
  if (Array.isArray(s.enum)) return (s.enum as Json[])[0]!;
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return minimalValue(((s.oneOf ?? s.anyOf) as unknown[])[0], real, path);
  const type = typesOf(s).find((t) => t !== "null") ?? typesOf(s)[0];
  switch (type) {
    case "boolean":
      return false;
    case "integer":
    case "number":
      return numberBounds(s, type === "integer").min ?? Math.min(0, numberBounds(s, type === "integer").max ?? 0);
    case "string":
      if (s.format === "uuid") return "00000000-0000-4000-8000-000000000000";
      if (s.format === "uri") return "https://conformance.invalid/";
      return "a".repeat(typeof s.minLength === "number" ? s.minLength : 1);
    case "array": {
      const n = typeof s.minItems === "number" ? s.minItems : 0;
      return Array.from({ length: n }, (_, i) => minimalValue(s.items ?? {}, real, [...path, i]));
    }
    case "object": {
      const props = propertiesOf(s);
      const required = requiredOf(s).filter((k) => k in props);
      // Enough properties for `minProperties`: the required ones, then the first others.
      const least = typeof s.minProperties === "number" ? s.minProperties : 0;
      const keys = [...required, ...Object.keys(props).filter((k) => !required.includes(k))].slice(0, Math.max(required.length, least));
      return Object.fromEntries(keys.map((k) => [k, minimalValue(props[k], real, [...path, k])]));
    }
    default:
      return null;
  }
}

/** The schema of the field at `path` (properties, array items, `allOf` parts), if the schema has one. */
export function schemaAt(raw: unknown, path: Path): View | undefined {
  let v = view(raw);
  for (const key of path) {
    const next = typeof key === "number" || /^\d+$/.test(key) ? v.s.items : propertiesOf(v.s)[key];
    if (next === undefined) return undefined;
    v = view(next);
  }
  return v;
}

/** Whether the schema states the bounds, set or format a refusal with `reason` invokes. */
export function states(s: JsonObject, reason: string): boolean {
  switch (reason) {
    case "out_of_range":
      return ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"].some((k) => typeof s[k] === "number");
    case "not_allowed":
      return "const" in s || Array.isArray(s.enum) || s.not !== undefined;
    case "bad_format":
      return typeof s.format === "string" || typeof s.pattern === "string";
    default:
      return true;
  }
}

/** A field of a schema: where it is, and its schema. */
export interface Field {
  path: Path;
  raw: unknown;
  view: View;
  /** Required by its parent object. */
  required: boolean;
}

/**
 * Every field under an object or array schema (depth first), arrays entered through their
 * first item. `depth` bounds recursion (schemas are trees here, but a bound is cheap).
 */
export function fieldsOf(raw: unknown, path: Path = [], depth = 4): Field[] {
  if (depth === 0) return [];
  const { s } = view(raw);
  const out: Field[] = [];
  const types = typesOf(s);
  if (types.includes("object")) {
    const props = propertiesOf(s);
    const required = requiredOf(s);
    for (const [k, v] of Object.entries(props)) {
      const at = [...path, k];
      out.push({ path: at, raw: v, view: view(v), required: required.includes(k) });
      out.push(...fieldsOf(v, at, depth - 1));
    }
  } else if (types.includes("array") && s.items) {
    const at = [...path, 0];
    out.push({ path: at, raw: s.items, view: view(s.items), required: false });
    out.push(...fieldsOf(s.items, at, depth - 1));
  }
  return out;
}

/** Notable valid values of a field: each bound at its edge, every enum value, both booleans, real values. */
export function edgeValues(field: Field, real: RealValues): Json[] {
  const { s, name } = field.view;
  const hooked = real({ name, path: field.path, s });
  if (hooked) {
    const others = hooked.other ? fc.sample(hooked.other, { seed: 7, numRuns: 3 }) : [];
    return [...new Set([...hooked.known.slice(0, 12), ...others].map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v) as Json);
  }
  if ("const" in s) return [s.const as Json];
  if (Array.isArray(s.enum)) return s.enum as Json[];
  const out: Json[] = [];
  for (const type of typesOf(s)) {
    if (type === "boolean") out.push(true, false);
    if (type === "null") out.push(null);
    if (type === "integer" || type === "number") {
      const { min, max } = numberBounds(s, type === "integer");
      if (min !== undefined) out.push(min);
      if (max !== undefined) out.push(max);
      if (min === undefined && max === undefined) out.push(0, type === "integer" ? -1 : -1.5, type === "integer" ? 2_147_483_648 : 123456.789);
    }
    if (type === "string" && !s.format && !s.pattern) {
      if (typeof s.minLength === "number") out.push(stringOfLength(s.minLength));
      else out.push("");
      if (typeof s.maxLength === "number") out.push(stringOfLength(s.maxLength));
    }
    if (type === "array") {
      if (typeof s.minItems === "number") out.push(Array.from({ length: s.minItems }, (_, i) => minimalValue(s.items ?? {}, real, [...field.path, i])));
      if (typeof s.maxItems === "number") out.push(Array.from({ length: s.maxItems }, (_, i) => minimalValue(s.items ?? {}, real, [...field.path, i])));
    }
  }
  return out;
}

/** The fault kinds, each with the reason of the seed's reason table it is refused with. */
export const FAULT_REASON = {
  above_maximum: "out_of_range",
  below_minimum: "out_of_range",
  too_long: "out_of_range",
  too_short: "out_of_range",
  too_many_items: "out_of_range",
  too_few_items: "out_of_range",
  wrong_type: "wrong_type",
  null_value: "wrong_type",
  coercible: "wrong_type",
  not_in_set: "not_allowed",
  bad_format: "bad_format",
  unknown_field: "unknown_field",
  other_variant_field: "unknown_field",
  missing: "required",
} as const;

export type FaultKind = keyof typeof FAULT_REASON;

/** One change that makes a field invalid. `value` undefined: remove the field. */
export interface FieldFault {
  kind: FaultKind;
  path: Path;
  value?: Json;
  /** What was done, for the report: `keyframe_times.0 = 21 (maximum 20)`. */
  describe: string;
}

/** A value of each JSON type but null, in the order the first wrong one is picked. */
const TYPE_VALUES: Json[] = [12345, "conformance", true, ["conformance"], { conformance: 1 }];

function jsonType(v: Json): JsonType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v as JsonType;
}

/** A value of every JSON type but null that the schema does not allow (an integer is a number). */
function wrongTypeValues(types: JsonType[]): Json[] {
  if (types.length === 0) return [];
  return TYPE_VALUES.filter((v) => {
    const t = jsonType(v);
    return !types.includes(t) && !(t === "integer" && types.includes("number"));
  });
}

/**
 * Values of another type that a lenient parser turns into `valid` (a framework's type
 * coercion, ajv's `coerceTypes: "array"`): a number as a numeric string, a boolean as a
 * string or a number, a value in a one-item array, an array's one item alone.
 */
function coercibleValues(types: JsonType[], valid: Json, items: () => Json): { value: Json; what: string }[] {
  const out: { value: Json; what: string }[] = [];
  const has = (...t: JsonType[]) => t.some((x) => types.includes(x));
  if (typeof valid === "number" && !has("string")) out.push({ value: String(valid), what: "a number as a numeric string" });
  if (typeof valid === "boolean" && !has("string")) out.push({ value: String(valid), what: "a boolean as a string" });
  if (typeof valid === "boolean" && !has("integer", "number")) out.push({ value: valid ? 1 : 0, what: "a boolean as a number" });
  if (valid !== null && typeof valid !== "object" && !has("array")) out.push({ value: [valid], what: "a valid value in a one-item array" });
  if (Array.isArray(valid) && !has("string", "integer", "number", "boolean", "object")) {
    const item = valid.length > 0 ? valid[0]! : items();
    if (item !== null && !Array.isArray(item)) out.push({ value: item, what: "one item, not in an array" });
  }
  return out;
}
const UNKNOWN_FIELD = "conformance_unknown_field";

/** The field's smallest valid value, unless no valid value is known (a cursor before any page was read). */
function someValid(field: Field, real: RealValues): Json | undefined {
  const hooked = real({ ...(field.view.name ? { name: field.view.name } : {}), path: field.path, s: field.view.s });
  if (hooked && hooked.known.length === 0 && !hooked.other) return undefined;
  return minimalValue(field.raw, real, field.path);
}

/** Every one-fault change of a field the schema allows to name (its bounds, type, set, format). */
export function fieldFaults(field: Field, real: RealValues): FieldFault[] {
  const { s } = field.view;
  const at = dotted(field.path);
  const out: FieldFault[] = [];
  const types = typesOf(s);
  if (field.required) out.push({ kind: "missing", path: field.path, describe: `${at} left out (required)` });
  if ("const" in s || Array.isArray(s.enum)) {
    const allowed = ("const" in s ? [s.const] : (s.enum as Json[])) as Json[];
    if (allowed.every((v) => typeof v === "string")) out.push({ kind: "not_in_set", path: field.path, value: "conformance-not-allowed", describe: `${at} = "conformance-not-allowed" (one of ${allowed.map((v) => JSON.stringify(v)).join(", ")})` });
  }
  // Each other JSON type, null, and the values a lenient parser would take for a valid one.
  const declared = types.length > 0 ? types : "const" in s ? [jsonType(s.const as Json)] : [];
  const typed = `type ${types.length > 0 ? types.join(" or ") : JSON.stringify(s.const)}`;
  for (const wrong of wrongTypeValues(declared)) out.push({ kind: "wrong_type", path: field.path, value: wrong, describe: `${at} = ${JSON.stringify(wrong)} (${typed})` });
  if (declared.length > 0 && !declared.includes("null")) out.push({ kind: "null_value", path: field.path, value: null, describe: `${at} = null (${typed}, not nullable)` });
  const valid = declared.length > 0 ? someValid(field, real) : undefined;
  if (valid !== undefined) {
    const items = () => minimalValue(s.items ?? {}, real, [...field.path, 0]);
    for (const c of coercibleValues(declared, valid, items)) out.push({ kind: "coercible", path: field.path, value: c.value, describe: `${at} = ${JSON.stringify(c.value)} (${typed}: ${c.what})` });
  }
  if (types.includes("integer") || types.includes("number")) {
    const integer = !types.includes("number");
    if (typeof s.maximum === "number") out.push({ kind: "above_maximum", path: field.path, value: s.maximum + 1, describe: `${at} = ${s.maximum + 1} (maximum ${s.maximum})` });
    if (typeof s.exclusiveMaximum === "number") out.push({ kind: "above_maximum", path: field.path, value: s.exclusiveMaximum, describe: `${at} = ${s.exclusiveMaximum} (below ${s.exclusiveMaximum}, exclusive)` });
    if (typeof s.minimum === "number") out.push({ kind: "below_minimum", path: field.path, value: s.minimum - 1, describe: `${at} = ${s.minimum - 1} (minimum ${s.minimum})` });
    if (typeof s.exclusiveMinimum === "number") out.push({ kind: "below_minimum", path: field.path, value: s.exclusiveMinimum, describe: `${at} = ${s.exclusiveMinimum} (above ${s.exclusiveMinimum}, exclusive)` });
    if (integer) out.push({ kind: "wrong_type", path: field.path, value: 1.5, describe: `${at} = 1.5 (an integer)` });
  }
  if (types.includes("string")) {
    if (typeof s.maxLength === "number") out.push({ kind: "too_long", path: field.path, value: "a".repeat(s.maxLength + 1), describe: `${at} of ${s.maxLength + 1} characters (maxLength ${s.maxLength})` });
    if (typeof s.minLength === "number" && s.minLength > 0) out.push({ kind: "too_short", path: field.path, value: "a".repeat(s.minLength - 1), describe: `${at} of ${s.minLength - 1} characters (minLength ${s.minLength})` });
    if (s.format === "uuid" || s.format === "uri" || typeof s.pattern === "string") out.push({ kind: "bad_format", path: field.path, value: "conformance not a valid format", describe: `${at} = "conformance not a valid format" (${s.format ? `format ${s.format}` : `pattern ${s.pattern}`})` });
  }
  if (types.includes("array")) {
    const item = (i: number) => minimalValue(s.items ?? {}, real, [...field.path, i]);
    if (typeof s.maxItems === "number") out.push({ kind: "too_many_items", path: field.path, value: Array.from({ length: s.maxItems + 1 }, (_, i) => item(i)), describe: `${at} with ${s.maxItems + 1} items (maxItems ${s.maxItems})` });
    if (typeof s.minItems === "number" && s.minItems > 0) out.push({ kind: "too_few_items", path: field.path, value: Array.from({ length: s.minItems - 1 }, (_, i) => item(i)), describe: `${at} with ${s.minItems - 1} items (minItems ${s.minItems})` });
  }
  if (types.includes("object") && s.additionalProperties === false) {
    out.push({ kind: "unknown_field", path: [...field.path, UNKNOWN_FIELD], value: "conformance", describe: `${at}.${UNKNOWN_FIELD} added (no such field)` });
  }
  return out;
}

/** An unknown field at the root of a closed object body. */
export function rootUnknownField(): FieldFault {
  return { kind: "unknown_field", path: [UNKNOWN_FIELD], value: "conformance", describe: `${UNKNOWN_FIELD} added (no such field)` };
}

// ---------------------------------------------------------------------------
// Placing values at a path.

function clone<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * `body` with `value` at `path` (undefined removes the field). Containers on the way are
 * made from the schema (an object with its required fields, an array with one item) when
 * the body lacks them.
 */
export function placed(body: Json, path: Path, value: Json | undefined, schema: unknown, real: RealValues): Json {
  if (path.length === 0) return value === undefined ? clone(body) : clone(value);
  const out = clone(body);
  let node: any = out;
  let s = view(schema).s;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const next = path[i + 1]!;
    const child = (typeof key === "number" ? s.items : propertiesOf(s)[key]) ?? {};
    if (node[key] === null || typeof node[key] !== "object") {
      const made = minimalValue(child, real, path.slice(0, i + 1));
      node[key] = made !== null && typeof made === "object" ? made : typeof next === "number" ? [] : {};
    }
    if (typeof next === "number" && Array.isArray(node[key])) {
      const items = view(child).s.items ?? {};
      while (node[key].length <= next) node[key].push(minimalValue(items, real, [...path.slice(0, i + 1), node[key].length]));
    }
    node = node[key];
    s = view(child).s;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(node) && typeof last === "number") node.splice(last, 1);
    else delete node[last];
  } else node[last] = clone(value);
  return out;
}

/** The value at a path, if there is one. */
export function valueAt(body: Json, path: Path): Json | undefined {
  let node: any = body;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[key];
  }
  return node;
}
