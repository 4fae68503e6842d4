// Builds everything derived from the contract into the places it is committed:
//   openapi/common/error-examples.yaml   (from the error-code table)
//   generated/openapi.yaml, generated/openapi.json   (the bundled document)
//   generated/types.ts                    (TypeScript types, openapi-typescript)
//   generated/traceability.md             (seed rules -> contract -> tests)
// The drift test (test/contract/generated.test.ts) rebuilds in memory and compares.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { buildErrorExamples } from "./build-error-examples.ts";
import { bundleContract, toJson, toYaml } from "./lib/bundle.ts";
import { generateTypes } from "./lib/types.ts";
import { buildTraceability } from "./lib/traceability.ts";
import { outputs, sources } from "./lib/paths.ts";

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote ${path.replace(process.cwd() + "/", "")}`);
}

write(sources.errorExamples, buildErrorExamples());
const doc = await bundleContract();
write(outputs.bundleYaml, toYaml(doc));
write(outputs.bundleJson, toJson(doc));
write(outputs.types, await generateTypes(doc));
write(outputs.traceability, buildTraceability(doc));
