// Validators that only say yes or no. The contract's own (allErrors, verbose) build an
// error object for every fault of every failed `oneOf` branch even when the body is
// valid (a submit fails four branches to pass one): 2.8 KB of garbage per submit. These
// stop at a branch's first fault, so a valid body costs little; an invalid one is then
// run through the contract's validator, which names every fault as before. A schema whose
// `oneOf` branches are chosen by a constant property (a submit's `type`) is checked
// against the chosen branch alone, as the branches exclude each other by that property.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";
import { contract } from "../../contract/document.ts";
import { chosenBranch } from "../../contract/validator.ts";

const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => void;
const ID = "https://generation-hub.local/quick/openapi.json";

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Accepts exactly what `schemaValidator(name)` accepts; its errors are not for details. */
export function quickValidator(name: string): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    if (!ajv) {
      // The contract validator's options but for allErrors and verbose, so the same bodies pass.
      ajv = new Ajv2020({ allErrors: false, verbose: false, strictSchema: false, strictTypes: false, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema({ ...(contract as object), $id: ID });
    }
    fn = ajv.getSchema(`${ID}#/components/schemas/${name}`);
    if (!fn) throw new Error(`No schema ${name}`);
    compiled.set(name, fn);
  }
  return fn;
}

/** `quickValidator(schemaName)(body)`, checking only the branch the body's constant property chooses. */
export function quickChosen(schemaName: string, body: unknown): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return quickValidator(schemaName)(body);
  const branch = chosenBranch(schemaName, body as Record<string, unknown>);
  return quickValidator(branch ?? schemaName)(body);
}
