// The reference's code samples (docs/samples/<operationId>.ts, issue 6 item 3): one per
// operation, written against the project's own client as a reader imports it, and
// type-checked against the client's sources so a sample that no longer matches fails here.
// The `ts` blocks of README.md and the guides are type-checked the same way. (All of them
// also run against the simulator: run-samples.test.ts.)
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSamples } from "../../src/docs/build.ts";
import { markdownSamples, notRunReason } from "./code-samples.ts";
import { referenceOperations } from "../../src/docs/routes.ts";
import { at } from "../../scripts/lib/paths.ts";
import { diagnostics } from "./support.ts";

const samplesDir = at("docs/samples");
const work = mkdtempSync(join(tmpdir(), "docs-samples-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sampleFiles = () => readdirSync(samplesDir).filter((f) => f.endsWith(".ts"));

describe("code samples", () => {
  it("every operation and webhook of the contract has exactly one sample, and every sample an operation", () => {
    const expected = referenceOperations().map((o) => `${o.operationId}.ts`).sort();
    expect(sampleFiles().sort()).toEqual(expected);
    expect([...readSamples(samplesDir).keys()].sort()).toEqual(referenceOperations().map((o) => o.operationId).sort());
  });

  it("samples use the client as a reader imports it (the package's published names), never its source paths", () => {
    expect(sampleFiles()).not.toHaveLength(0);
    for (const file of sampleFiles()) {
      const text = readFileSync(join(samplesDir, file), "utf8");
      const specifiers = [...text.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!);
      expect(specifiers.some((s) => s === "@generation-hub/api" || s === "@generation-hub/api/oauth"), file).toBe(true);
      for (const s of specifiers) expect(s, file).toMatch(/^(@generation-hub\/api(\/oauth)?|node:[\w/]+)$/);
    }
  });

  it("every sample type-checks against the client (docs/samples/tsconfig.json)", () => {
    expect(diagnostics(join(samplesDir, "tsconfig.json"))).toEqual([]);
  }, 90_000);

  it("every ts block of README.md and the guides type-checks against the client", () => {
    const dir = mkdtempSync(join(work, "markdown-"));
    const blocks = markdownSamples().filter((b) => !notRunReason(b));
    expect(blocks.length).toBeGreaterThan(2);
    for (const block of blocks) {
      // .mts: each block is an ES module (top-level await). Blocks import the packages by
      // their published names, which the samples' tsconfig maps to the sources.
      writeFileSync(join(dir, block.file.replace(/\.ts$/, ".mts")), block.source);
    }
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ extends: join(samplesDir, "tsconfig.json"), compilerOptions: { typeRoots: [at("node_modules/@types")] }, include: [join(dir, "*.mts")] }),
    );
    expect(diagnostics(join(dir, "tsconfig.json"))).toEqual([]);
  }, 90_000);

  it("a sample that no longer matches the client fails the type check", () => {
    writeFileSync(
      join(work, "tsconfig.json"),
      // typeRoots: the work folder is outside the project, where "types": ["node"] would not
      // resolve, and such a global error would hide every semantic one.
      JSON.stringify({ extends: join(samplesDir, "tsconfig.json"), compilerOptions: { typeRoots: [at("node_modules/@types")] }, include: [join(work, "*.ts")] }),
    );
    writeFileSync(
      join(work, "stale.ts"),
      [
        'import { createHubClient } from "@generation-hub/api";',
        'const hub = createHubClient({ baseUrl: "http://127.0.0.1:4010", apiKey: "k" });',
        'const { data } = await hub.GET("/v1/whoami");',
        // Records are open to unlisted fields, so a stale field name alone still compiles; a
        // stale value of a closed vocabulary (a scope) or of a closed request body does not.
        'console.log(data?.scopes.includes("generations:writ"));',
        'await hub.submit({ type: "video", modell: "video-model-a" });',
      ].join("\n"),
    );
    const found = diagnostics(join(work, "tsconfig.json"));
    expect(found.some((d) => d.includes("generations:writ"))).toBe(true);
    expect(found.some((d) => d.includes("modell"))).toBe(true);
  }, 90_000);
});
