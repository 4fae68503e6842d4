// JSON Schema 2020-12 validation against the bundled contract (ajv), shared by the
// simulator (requests), the tests and the conformance suite (responses).
import { Ajv2020, type Options, type ValidateFunction } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { collapse, validateChosenWith, type Detail } from "./details.ts";
import { contract, deref, type JsonObject, type Operation } from "./document.ts";

export { chosenBranch, collapse, dottedPath, toDetails, type Detail } from "./details.ts";

// ajv-formats is CommonJS with a default export; unwrap it the same way in Node and TS.
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => void;

/** The id the bundle is added under (`validatorAt` looks refs up below it). */
export const CONTRACT_ID = "https://generation-hub.local/openapi.json";

/**
 * The validator of the contract's requests and answers. `extra` adds options that do not
 * change what is accepted or reported (the docs' standalone build adds `code`).
 */
export function createAjv(extra: Options = {}): Ajv2020 {
  // The document carries OpenAPI keywords (`openapi`, `x-...`) beside the schemas;
  // they are annotations here, so unknown keywords are not an error.
  // `verbose` gives each error its schema, so alternatives can be collapsed (see `collapse`).
  const ajv = new Ajv2020({ ...extra, allErrors: true, verbose: true, strictSchema: false, strictTypes: false, validateFormats: true });
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
// Requests: refusals name the fields at fault (`details[]` of the envelope; the mapping
// lives in details.ts, shared with the docs' try-it panel).

/**
 * Validates a body against a schema whose `oneOf` branches are chosen by a constant
 * property (`type` of a submit, `grant_type` of a token request), so the refusal lists
 * the faults of the chosen branch only; a branch without a constant (the 3D variant)
 * takes every other value.
 */
export function validateChosen(schemaName: string, body: unknown): Detail[] {
  return validateChosenWith(validatorAt, schemaName, body);
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
