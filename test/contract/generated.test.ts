// Everything derived from the contract is committed; CI fails when it is stale.
// Each check rebuilds in memory with the build's own code and compares.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildErrorExamples } from "../../scripts/build-error-examples.ts";
import { bundleContract, toJson, toYaml } from "../../scripts/lib/bundle.ts";
import { generateTypes } from "../../scripts/lib/types.ts";
import { outputs, sources } from "../../scripts/lib/paths.ts";

const committed = (path: string) => readFileSync(path, "utf8");
const stale = (what: string) => `${what} is stale: run \`npm run build\` and commit the result`;

describe("generated files are up to date", () => {
  it("ERR-2: the error examples match the error-code table", () => {
    expect(committed(sources.errorExamples), stale("openapi/common/error-examples.yaml")).toBe(buildErrorExamples());
  });

  it("the bundle (YAML, JSON) and the types match the sources", async () => {
    const doc = await bundleContract();
    expect(committed(outputs.bundleYaml), stale("generated/openapi.yaml")).toBe(toYaml(doc));
    expect(committed(outputs.bundleJson), stale("generated/openapi.json")).toBe(toJson(doc));
    expect(committed(outputs.types), stale("generated/types.ts")).toBe(await generateTypes(doc));
  });
});

describe("the bundle for other tools", () => {
  it("names its JSON Schema dialect once, at the root; components carry no $schema of their own", () => {
    const doc = JSON.parse(committed(outputs.bundleJson)) as { jsonSchemaDialect?: string; components: { schemas: Record<string, object> } };
    expect(doc.jsonSchemaDialect).toBe("https://json-schema.org/draft/2020-12/schema");
    const carriers = Object.entries(doc.components.schemas).filter(([, s]) => JSON.stringify(s).includes('"$schema"')).map(([name]) => name);
    expect(carriers).toEqual([]);
    expect(committed(outputs.bundleJson)).not.toContain('"$schema"');
    // The standalone files keep theirs: each is a document of its own.
    expect(JSON.parse(committed("schemas/catalog/ModelRecord.json")).$schema).toBe("https://json-schema.org/draft/2020-12/schema");
  });
});
