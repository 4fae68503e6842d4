// Compiler checks run as tests: the type tests (types.test-d.ts) and the package build's
// configuration, which compiles src/client against the DOM library without Node's types,
// so a Node-only API in the client fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";

function diagnostics(configFile: string, rootNames?: string[]): string[] {
  const config = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, at("."));
  const program = ts.createProgram({ rootNames: rootNames ?? parsed.fileNames, options: { ...parsed.options, noEmit: true } });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? `${d.file.fileName.replace(at("."), "")}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
}

function clientFiles(dir = at("src/client")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? clientFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

describe("compiler checks", () => {
  it("SUB-0 ERR-1 PAGE-1 SUB-3D: the type tests compile (narrowing by type, required Idempotency-Key, error codes, paging)", () => {
    expect(diagnostics(at("tsconfig.json"), [at("test/client/types.test-d.ts")])).toEqual([]);
  }, 60_000);

  it("the client compiles for browsers: DOM library only, no Node types (tsconfig.build.json)", () => {
    expect(diagnostics(at("tsconfig.build.json"))).toEqual([]);
  }, 60_000);

  it("the client imports no Node built-in module and no part of the contract runtime", () => {
    const offending = clientFiles().flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return [...text.matchAll(/from\s+"([^"]+)"/g)]
        .map((m) => m[1]!)
        .filter((spec) => spec.startsWith("node:") || /^(fs|path|http|https|crypto|stream|buffer|url|net|os)$/.test(spec) || spec.includes("/contract/") || spec === "ajv" || spec.endsWith("openapi.json"))
        .map((spec) => `${file.replace(at("."), "")}: ${spec}`);
    });
    expect(offending).toEqual([]);
  });
});
