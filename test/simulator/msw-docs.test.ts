// The examples of docs/simulator.md's Mock Service Worker section: both type-check against
// the sources as the docs' other samples do (in a folder inside the project, where `msw`
// resolves), and the Node one runs as a reader would run it (bundled as the docs' samples
// are, in a fresh Node process): its node:test tests must all pass. The browser example
// runs in msw-browser.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { bundleSample, runInNode } from "../docs/sample-runner.ts";
import { mswDocsSample } from "./support/msw-docs.ts";
import { ownDiagnostics } from "../support/typescript.ts";

describe("docs/simulator.md, Mock Service Worker in a Node test", () => {
  const work = mkdtempSync(join(tmpdir(), "msw-docs-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("both examples type-check against the client and the simulator's sources", { timeout: 90_000 }, () => {
    mkdirSync(at("node_modules/.cache"), { recursive: true });
    const dir = mkdtempSync(at("node_modules/.cache/msw-docs-"));
    try {
      for (const [name, text] of [["node", "setupServer(...handlers)"], ["browser", "setupWorker(...handlers)"]]) {
        writeFileSync(join(dir, `${name}.mts`), mswDocsSample(text!));
      }
      const options = ts.parseJsonConfigFileContent({ extends: at("docs/samples/tsconfig.json"), include: ["*.mts"] }, ts.sys, dir).options;
      const examples = [join(dir, "node.mts"), join(dir, "browser.mts")];
      const program = ts.createProgram({ rootNames: examples, options });
      const found = ownDiagnostics(program, examples).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
      expect(found).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the Node example's tests all pass", { timeout: 60_000 }, async () => {
    const code = await bundleSample({ source: mswDocsSample("setupServer(...handlers)"), resolveDir: at(".") }, "node");
    const result = await runInNode(code, { cwd: work, env: {}, timeoutMs: 30_000 });
    expect(result.timedOut, result.output).toBe(false);
    expect(result.code, result.output).toBe(0);
    // node:test prints its totals as TAP ("# pass 3") on Node 20 without a terminal and
    // with its spec reporter ("ℹ pass 3") on Node 24.
    expect(result.output).toMatch(/^(?:#|ℹ) pass 3$/m);
    expect(result.output).toMatch(/^(?:#|ℹ) fail 0$/m);
  });
});
