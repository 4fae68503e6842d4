// The inspector's page script is TypeScript the compiler checks (inspector/app.ts), bundled
// into the text the simulator serves (inspector/script.ts, by make-script.ts), as the
// result files are carried in msw/result-files.ts. Here: the served text is the bundle of
// today's app.ts (else: run make-script.ts), the check sees a source that changed, and
// app.ts compiles for the browser alone (the DOM library, no Node types), against the
// shapes the control routes answer.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { ownDiagnostics } from "../support/typescript.ts";
import { inspectorScriptFile } from "../../src/simulator/handlers/control/inspector/make-script.ts";
import { INSPECTOR_SCRIPT } from "../../src/simulator/handlers/control/inspector/script.ts";

const APP = at("src/simulator/handlers/control/inspector/app.ts");
const work = mkdtempSync(join(tmpdir(), "inspector-script-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the inspector's page script", () => {
  it("script.ts is the bundle of app.ts as it is (else run npx tsx src/simulator/handlers/control/inspector/make-script.ts)", async () => {
    expect(await inspectorScriptFile()).toBe(readFileSync(at("src/simulator/handlers/control/inspector/script.ts"), "utf8"));
    // One classic script, its names inside it: it parses as a function body.
    expect(() => new Function(INSPECTOR_SCRIPT)).not.toThrow();
    expect(INSPECTOR_SCRIPT).toContain("/_sim/ui/events");
  });

  it("the check sees a change of the source: a bundle of an edited app.ts is another text", async () => {
    const edited = join(work, "app.ts");
    writeFileSync(edited, readFileSync(APP, "utf8").replace("const MAX_ROWS = 1000;", "const MAX_ROWS = 999;"));
    copyFileSync(at("src/simulator/handlers/control/inspector/views.ts"), join(work, "views.ts"));
    copyFileSync(at("src/simulator/handlers/control/inspector/overview.ts"), join(work, "overview.ts"));
    const text = await inspectorScriptFile(edited);
    expect(text).toContain("MAX_ROWS = 999");
    expect(text).not.toBe(await inspectorScriptFile());
  });

  it("app.ts compiles with the DOM library and without Node's types, against the control routes' own types", { timeout: 90_000 }, () => {
    const options: ts.CompilerOptions = {
      ...ts.parseJsonConfigFileContent({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022" } }, ts.sys, at(".")).options,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
      types: [],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      skipLibCheck: true,
    };
    // The same compiler finds a mistake in a copy of it (a module beside it, in the same
    // program, so what they import is checked once): the check is not blind.
    const broken = join(work, "broken.ts");
    writeFileSync(broken, readFileSync(APP, "utf8").replace('from "./views.ts"', `from ${JSON.stringify(at("src/simulator/handlers/control/inspector/views.ts"))}`).replace('from "./overview.ts"', `from ${JSON.stringify(at("src/simulator/handlers/control/inspector/overview.ts"))}`).replace("r.request_id),", "r.request_ids),"));
    const found = ownDiagnostics(ts.createProgram({ rootNames: [APP, broken], options }), [APP, broken]);
    const messagesIn = (file: string) => found.filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(messagesIn(APP)).toEqual([]);
    expect(messagesIn(broken).join("\n")).toContain("request_ids");
  });
});
