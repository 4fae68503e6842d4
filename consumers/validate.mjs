// Reads an OpenAPI document (a multi-file source or a bundle) with a validator of the
// consumer matrix and prints what it found as JSON: { valid, problems }. Run by
// test/consumers/validators.test.ts on the matrix's Node 24 (the validators need Node 22):
//   node validate.mjs readme|scalar <file>
import { validate as readmeValidate } from "@readme/openapi-parser";
import { bundle } from "@scalar/json-magic/bundle";
import { parseJson, parseYaml, readFiles } from "@scalar/json-magic/bundle/plugins/node";
import { dereference, validate as scalarValidate } from "@scalar/openapi-parser";

const [tool, file] = process.argv.slice(2);

/** @readme/openapi-parser: validates the document and every file it references. */
async function readme(path) {
  const result = await readmeValidate(path);
  return { valid: result.valid, problems: [...(result.errors ?? []), ...(result.warnings ?? [])].map((p) => p.message ?? String(p)) };
}

/** Scalar: loads the files as its API reference does (json-magic), then validates and dereferences. */
async function scalar(path) {
  const document = await bundle(path, { plugins: [readFiles(), parseYaml(), parseJson()], treeShake: false });
  const checked = await scalarValidate(document);
  const resolved = await dereference(document);
  const problems = [...(checked.errors ?? []), ...(resolved.errors ?? [])].map((p) => `${p.code ?? ""} ${p.message}`.trim());
  return { valid: checked.valid && problems.length === 0, problems, paths: Object.keys(resolved.schema?.paths ?? {}).length };
}

const tools = { readme, scalar };
if (!tools[tool] || !file) {
  console.error("usage: node validate.mjs readme|scalar <file>");
  process.exit(2);
}
console.log(JSON.stringify(await tools[tool](file)));
