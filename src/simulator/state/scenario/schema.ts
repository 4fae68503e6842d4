// The scenario's JSON Schema (scenarios/scenario.schema.json) compiled once, with the
// contract's definitions put in place of its references to them. A scenario is checked
// against the whole; a fault (POST /_sim/faults, --faults, the `faults` option) against
// its definition in the same file, so a fault has one definition however it comes in.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { pointer } from "../../../contract/document.ts";
import schema from "../../scenarios/scenario.schema.json" with { type: "json" };

const CONTRACT_REF = "https://generation-hub.local/openapi.json#";

/** The schema with the contract's definitions put in place of its references to them. */
function withContract(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withContract);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (key !== "$ref" || typeof value !== "string" || !value.startsWith(CONTRACT_REF)) out[key] = withContract(value);
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith(CONTRACT_REF)) {
    const target = pointer(ref.slice(CONTRACT_REF.length - 1));
    if (!target || typeof target !== "object") throw new Error(`scenario.schema.json refers to ${ref}, which the contract does not have`);
    return { ...target, ...out };
  }
  return out;
}

let ajv: Ajv2020 | undefined;

/**
 * The validator of the scenario schema, or of one of its definitions (`"Fault"`).
 * Defaults are filled in by the validation itself: the schema is their one place.
 */
export function scenarioValidator(definition?: string): ValidateFunction {
  if (!ajv) {
    const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => void;
    // Compiled unoptimised (in half the time): a scenario is read once per load.
    ajv = new Ajv2020({ allErrors: true, verbose: true, useDefaults: true, discriminator: true, strictSchema: false, strictTypes: false, validateSchema: false, inlineRefs: false, code: { optimize: false } });
    addFormats(ajv);
    ajv.addSchema(withContract(schema) as object);
  }
  const ref = definition === undefined ? schema.$id : `${schema.$id}#/$defs/${definition}`;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`scenario.schema.json has no ${ref}`);
  return validate;
}

/** The definition of a fault as the schema gives it. */
export const faultSchema = schema.$defs.Fault;
