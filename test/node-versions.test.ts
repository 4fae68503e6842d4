// The supported Node versions, said the same everywhere they are said: both packages'
// `engines`, the READMEs a user reads, and the Node versions CI runs the tests on
// (docs/contributing.md, "Node versions").
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { at } from "../scripts/lib/paths.ts";

/** 20.19+, 22.12+ and 24+; Node 20 goes in the next major release. */
const ENGINES = "^20.19.0 || ^22.12.0 || >=24";
const MAJORS = ["20", "22", "24"];

const manifest = (path: string) => JSON.parse(readFileSync(at(path), "utf8")) as { engines?: { node?: string }; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; overrides?: Record<string, string> };

describe("supported Node versions", () => {
  it("both packages' engines say 20.19+, 22.12+ or 24+", () => {
    expect(manifest("package.json").engines?.node).toBe(ENGINES);
    expect(manifest("packages/devtools/package.json").engines?.node).toBe(ENGINES);
  });

  it("the READMEs say the same versions and that Node 20 is dropped in the next major release", () => {
    for (const readme of ["README.md", "packages/devtools/README.md"]) {
      const text = readFileSync(at(readme), "utf8").replace(/\s+/g, " ");
      expect(text, readme).toContain("Node 20.19+, 22.12+ or 24+");
      expect(text, readme).toContain("the next major release drops it");
    }
    expect(readFileSync(at("README.md"), "utf8").replace(/\s+/g, " ")).toContain(ENGINES);
  });

  it("CI runs the tests on each supported major: this machine's Node 20, then Node 22 and 24 from the npm registry", () => {
    const ci = readFileSync(at(".ci/run"), "utf8");
    const legs = /for major in ([\d ]+); do/.exec(ci);
    expect(legs, ".ci/run installs the other Node versions in one loop").not.toBeNull();
    expect(["20", ...legs![1]!.trim().split(/\s+/)]).toEqual(MAJORS);
    expect(ci).toContain('npm install --no-audit --no-fund "node@$major"');
    expect(ci).toMatch(/^npm ci --engine-strict\b/m);
  });

  it("the dev tools install no HTTP framework (their server is node:http); the repository pins Fastify's light-my-request while the benchmark's Fastify row needs it", () => {
    const devtools = manifest("packages/devtools/package.json").dependencies ?? {};
    expect(Object.keys(devtools).length).toBeGreaterThan(0);
    expect(Object.keys(devtools).filter((name) => /^(fastify|light-my-request)$/.test(name))).toEqual([]);
    const root = manifest("package.json");
    if (root.devDependencies?.fastify) expect(root.overrides?.["light-my-request"]).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
