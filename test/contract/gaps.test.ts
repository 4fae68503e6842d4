// GAP-1: every gap the seed marks ("not shown", "none shown", "not listed") is recorded
// where it applies by an `x-not-shown` that quotes the seed, and nothing else is.
import { describe, expect, it } from "vitest";
import { contract, schemaFiles } from "../support/contract.ts";
import { gapSentences, seedText } from "../support/seed.ts";

interface Annotation {
  where: string;
  quote: string;
}

function annotations(node: unknown, where: string, out: Annotation[]): Annotation[] {
  if (!node || typeof node !== "object") return out;
  for (const [key, value] of Object.entries(node)) {
    if (key === "x-not-shown") {
      for (const quote of Array.isArray(value) ? value : [value]) out.push({ where, quote: String(quote) });
    } else {
      annotations(value, `${where}/${key}`, out);
    }
  }
  return out;
}

const inBundle = annotations(contract, "#", []);
const inFiles = [...schemaFiles()].flatMap(([file, s]) => annotations(s, `schemas/${file}#`, []));
const all = [...inBundle, ...inFiles];
const normalize = (s: string) => s.replace(/\s+/g, " ").trim();

describe("GAP-1: gaps of the seed", () => {
  it("every x-not-shown quotes the seed word for word and names a gap", () => {
    for (const a of all) {
      expect(normalize(seedText), `${a.where}: "${a.quote}"`).toContain(normalize(a.quote));
      expect(a.quote, a.where).toMatch(/not shown|none shown|not listed/);
    }
  });

  it.each(gapSentences())("is recorded in the contract: %s", (sentence) => {
    const covering = all.filter((a) => normalize(sentence).includes(normalize(a.quote)));
    expect(covering.length, `no x-not-shown quotes "${sentence}"`).toBeGreaterThan(0);
  });

  it("the bundle carries the gaps of the schema files (nothing is lost in bundling)", () => {
    const bundled = new Set(inBundle.map((a) => a.quote));
    for (const a of inFiles) expect(bundled, a.where).toContain(a.quote);
  });
});
