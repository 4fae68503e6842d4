// Other readers of OpenAPI on the sources as written (a multi-file document) and on the
// published bundle: @readme/openapi-parser (swagger-parser's successor) validates every
// file, and Scalar loads the files as its API reference does (json-magic), then validates
// and dereferences the whole. Both must find nothing. (Redocly's recommended-strict alone is
// in test/contract/lint.test.ts; Spectral in spectral.test.ts; Scalar's rendered reference in
// scalar.test.ts.)
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { at, consumers } from "../../scripts/lib/paths.ts";
import { consumerToolsFor, runTool } from "./support.ts";

const installed = consumerToolsFor("consumer matrix: OpenAPI parsers", "test/consumers/parsers.test.ts");

async function read(tool: "readme" | "scalar", file: string): Promise<{ valid: boolean; problems: string[]; paths?: number }> {
  const run = await runTool(join(consumers.root, "validate.mjs"), [tool, file]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { valid: boolean; problems: string[]; paths?: number };
}

describe.runIf(installed)("consumer matrix: OpenAPI parsers", { timeout: 120_000 }, () => {
  for (const [label, file] of [
    ["the sources", at("openapi/openapi.yaml")],
    ["the published bundle", at("generated/openapi.json")],
  ] as const) {
    it(`@readme/openapi-parser validates ${label} with no error or warning`, async () => {
      expect(await read("readme", file)).toEqual({ valid: true, problems: [] });
    });

    it(`Scalar loads, validates and dereferences ${label} with no error, every path read`, async () => {
      expect(await read("scalar", file)).toEqual({ valid: true, problems: [], paths: 33 });
    });
  }

  it("a document these parsers refuse is reported: an operation without responses, a $ref to nothing", async () => {
    const broken = join(consumers.work, "broken.json");
    mkdirSync(consumers.work, { recursive: true });
    writeFileSync(
      broken,
      JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: { "/x": { get: { parameters: [{ $ref: "#/components/parameters/Missing" }] } } } }),
    );
    expect((await read("readme", broken)).valid).toBe(false);
    expect((await read("scalar", broken)).valid).toBe(false);
  });
});
