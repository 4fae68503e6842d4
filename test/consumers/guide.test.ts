// The guide to other generators and the matrix agree: every program the guide shows is
// compiled by a generator's test against that generator's output, and every generator of
// the matrix has its section, its test file and its pinned packages. (Runs without the
// matrix's tools: it reads files only.)
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { markdownBlocks } from "../docs/code-samples.ts";
import { GENERATORS, GUIDE, PROGRAM_FENCE, guideSection, pinned } from "./support.ts";

describe("the generators guide and the consumer matrix", () => {
  it("every program of the guide sits in the section of a generator the matrix runs", () => {
    const programs = markdownBlocks(GUIDE, PROGRAM_FENCE);
    expect(programs.length).toBeGreaterThan(0);
    const covered = GENERATORS.map((g) => guideSection(g.heading).program);
    for (const p of programs) expect(covered, p.name).toContain(p.source);
    expect(programs).toHaveLength(GENERATORS.length);
  });

  it("every generator has its test file, its pinned packages and the guide's words for them", () => {
    expect(GENERATORS.length).toBe(5);
    const guide = readFileSync(at(GUIDE), "utf8");
    for (const g of GENERATORS) {
      const file = at(`test/consumers/${g.heading}.test.ts`);
      expect(existsSync(file), file).toBe(true);
      expect(readFileSync(file, "utf8")).toContain(`describeGenerator(generator("${g.heading}"))`);
      for (const name of g.packages) expect(guide).toContain(`${name} ${pinned(name)}`);
    }
  });
});
