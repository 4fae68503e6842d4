// The contract lints clean under recommended-strict plus the project's rules, both as
// written (openapi/) and as bundled (generated/); and each project rule can fail.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createConfig, lint, loadConfig } from "@redocly/openapi-core";
import { at } from "../../scripts/lib/paths.ts";

/** Every YAML file of the sources, by path from the repository root. */
function sourceFiles(dir = at("openapi")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".yaml") ? [join(dir, e.name)] : [],
  );
}

async function problems(file: string) {
  const config = await loadConfig({ configPath: at("redocly.yaml") });
  const found = await lint({ ref: file, config });
  return found.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.source.absoluteRef}${p.location[0]?.pointer ?? ""})`);
}

describe("lint", () => {
  it("W-2 W-5 EP-1: the sources lint with zero problems", async () => {
    expect(await problems(at("openapi/openapi.yaml"))).toEqual([]);
  });

  it("W-2 W-5 EP-1: the bundle lints with zero problems", async () => {
    expect(await problems(at("generated/openapi.yaml"))).toEqual([]);
  });

  // Redocly reads both, but Spectral, swagger-parser and @readme/openapi-parser take a merge
  // key for a literal `<<` key, and Scalar refuses a `$ref` that is not a valid URI reference
  // (`{` `}` are not allowed in one: path parameters are written _name_ in file names).
  it("the sources use no YAML merge keys, and every $ref is a valid URI reference (RFC 3986)", () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(20);
    // Unreserved and reserved characters, and %-escapes: nothing else may stand in a URI reference.
    const uriReference = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*$/;
    let refs = 0;
    for (const file of files) {
      const lines = readFileSync(file, "utf8").split("\n");
      expect(lines.filter((l) => /^\s*<<\s*:/.test(l)), file).toEqual([]);
      for (const [, ref] of lines.map((l) => /\$ref:\s*['"]?([^'"\s]+)/.exec(l)).filter((m) => m !== null)) {
        refs++;
        expect(ref, file).toMatch(uriReference);
      }
    }
    expect(refs).toBeGreaterThan(100);
    expect("catalog/v1@knowledge@{slug}.yaml").not.toMatch(uriReference);
  });

  // What a consumer's own Redocly finds: `recommended-strict` alone, none of the project's
  // settings (redocly.yaml turns no rule of it off).
  it("the sources and the bundle lint clean under Redocly's recommended-strict alone", async () => {
    const config = await createConfig({ extends: ["recommended-strict"] });
    for (const file of [at("openapi/openapi.yaml"), at("generated/openapi.yaml"), at("generated/openapi.json")]) {
      const found = await lint({ ref: file, config });
      expect(found.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ""})`), file).toEqual([]);
    }
  });

  it("each project rule fires on a document that breaks it", async () => {
    const found = await problems(at("test/contract/fixtures/breaks-every-hub-rule.yaml"));
    const fired = new Set(found.map((p) => p.split(":")[0]));
    for (const rule of [
      "hub/snake-case-properties",
      "hub/snake-case-parameters",
      "hub/v1-security",
      "hub/error-statuses",
      "hub/error-envelope",
      "hub/response-examples",
      "hub/explicit-additional-properties",
      "hub/no-boolean-subschemas",
      "rule/operation-id-camel-case",
    ]) {
      expect(fired, rule).toContain(rule);
    }
  });
});
