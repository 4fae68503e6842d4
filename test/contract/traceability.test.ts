// Every normative rule of the seed is traceable to where the contract encodes it and
// to a test that would fail without it (docs/seed-rules.yaml -> generated/traceability.md).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildTraceability, idsOfTitle, locationExists, seedRules, testTitles } from "../../scripts/lib/traceability.ts";
import { outputs } from "../../scripts/lib/paths.ts";
import { contract } from "../support/contract.ts";

const bundle = contract as Record<string, unknown>;
const rules = seedRules();
const titles = testTitles();

describe("traceability", () => {
  it("rule ids are unique", () => {
    const ids = rules.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it("every contract location of every rule exists", () => {
    const missing = rules.flatMap((r) => r.contract.filter((loc) => !locationExists(loc, bundle)).map((loc) => `${r.id}: ${loc}`));
    expect(missing).toEqual([]);
  });

  it("every id a test names is a rule of the registry", () => {
    const known = new Set(rules.map((r) => r.id));
    const unknown = titles.flatMap((t) => t.ids.filter((id) => !known.has(id)).map((id) => `${t.file}: ${id} in "${t.title}"`));
    expect(unknown).toEqual([]);
  });

  it("every rule has at least one test", () => {
    const covered = new Set(titles.flatMap((t) => t.ids));
    expect(rules.filter((r) => !covered.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it("titles name ids before a colon, ranges included", () => {
    expect(idsOfTitle("SUB-1 SUB-2: a submit")).toEqual(["SUB-1", "SUB-2"]);
    expect(idsOfTitle("ENV-1..ENV-3: the envelope")).toEqual(["ENV-1", "ENV-2", "ENV-3"]);
    expect(idsOfTitle("a title without ids: SUB-1")).toEqual([]);
  });

  it("generated/traceability.md is up to date", () => {
    expect(readFileSync(outputs.traceability, "utf8"), "run `npm run build`").toBe(buildTraceability(bundle));
  });
});
