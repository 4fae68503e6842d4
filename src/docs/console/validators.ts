// The try-it panel's body checks, compiled ahead of time: ajv's standalone code for the
// request bodies' schemas, made by the very validator the simulator uses (createAjv: the
// same options, the same formats), so the page needs no `eval` (its CSP allows none).
//
// ajv's standalone code writes each schema it reports errors against as a literal copy.
// The mapping from errors to details (src/contract/details.ts) tells a failed `oneOf`'s own
// faults from the rest by the schema objects errors name, which must then be the bundle's
// own objects, as they are in the simulator. So every such schema is written instead as a
// lookup into the bundle the page carries (`schemaAt("#/components/schemas/...")`).
import { _Code } from "ajv/dist/compile/codegen/code.js";
import * as standaloneModule from "ajv/dist/standalone/index.js";
import { contract } from "../../contract/document.ts";
import { CONTRACT_ID, createAjv, encodePointer } from "../../contract/validator.ts";

// ajv's standalone entry is CommonJS with a default export; unwrap it the same way in Node and TS.
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (ajv: unknown, refs: Record<string, string>) => string;

/** The name of the lookup the generated code calls; the module importing it provides it. */
export const SCHEMA_LOOKUP = "schemaAt";

interface ScopeName {
  value?: { ref: unknown; code?: unknown };
}

/** Every object of the bundle by its JSON pointer (`#/components/schemas/X/properties/y`). */
function pointersOf(root: object): Map<object, string> {
  const found = new Map<object, string>();
  const visit = (node: unknown, at: string) => {
    if (!node || typeof node !== "object" || found.has(node)) return;
    found.set(node, at);
    for (const [key, value] of Object.entries(node)) visit(value, `${at}/${encodeURIComponent(encodePointer(key))}`);
  };
  visit(root, "#");
  return found;
}

/**
 * ES module source exporting `validators`: the validator of each pointer of `refs`, keyed
 * by it. It imports `schemaAt(pointer)` (the bundle's object at a pointer) from `lookupModule`.
 */
export function standaloneValidators(refs: readonly string[], lookupModule: string): string {
  if (refs.length === 0) throw new Error("no schema to compile");
  const ajv = createAjv({ code: { source: true, esm: true } });
  const exports: Record<string, string> = {};
  refs.forEach((ref, i) => {
    if (!ajv.getSchema(CONTRACT_ID + ref)) throw new Error(`No schema at ${ref}`);
    exports[`v${i}`] = CONTRACT_ID + ref;
  });
  const where = pointersOf(contract);
  // ajv keeps the values its generated code refers to in its scope, by prefix.
  const schemas = (ajv.scope as unknown as { _values: Record<string, Map<unknown, ScopeName>> })._values.schema;
  for (const name of schemas?.values() ?? []) {
    const at = name.value && where.get(name.value.ref as object);
    // The meta-schemas and the root's own copy are not bundle objects; no body check uses them.
    if (at !== undefined) name.value!.code = new _Code(`${SCHEMA_LOOKUP}(${JSON.stringify(at)})`);
  }
  const code = standaloneCode(ajv, exports);
  // A literal schema left in the code would break the mapping's object identities.
  const literal = /const schema\d+ = \{/.exec(code);
  if (literal) throw new Error(`standalone validators: a schema is written as a literal (${code.slice(literal.index, literal.index + 120)})`);
  const table = refs.map((ref, i) => `  ${JSON.stringify(ref)}: v${i},`).join("\n");
  return `import { pointer as ${SCHEMA_LOOKUP} } from ${JSON.stringify(lookupModule)};\n${code}\nexport const validators = {\n${table}\n};\n`;
}
