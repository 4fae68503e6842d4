// The contract lints clean under recommended-strict plus the project's rules, both as
// written (openapi/) and as bundled (generated/); and each project rule can fail.
import { describe, expect, it } from "vitest";
import { lint, loadConfig } from "@redocly/openapi-core";
import { at } from "../../scripts/lib/paths.ts";

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
      "rule/operation-id-camel-case",
    ]) {
      expect(fired, rule).toContain(rule);
    }
  });
});
