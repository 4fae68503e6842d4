// The Mock Service Worker entry point bundles for a browser: nothing in its import tree
// (the hub, the contract modules it reads, their packages) imports a Node built-in, and it
// compiles against the DOM library alone (no Node global such as Buffer or process).
import { builtinModules } from "node:module";
import { build, type Plugin } from "esbuild";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Every import of a Node built-in in the bundle of `entry`, as `importer -> module`. */
async function nodeImports(entry: string): Promise<string[]> {
  const found: string[] = [];
  const spot: Plugin = {
    name: "spot-node-builtins",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!NODE_BUILTINS.has(args.path)) return undefined;
        found.push(`${args.importer.replace(`${process.cwd()}/`, "")} -> ${args.path}`);
        return { path: args.path, external: true };
      });
    },
  };
  await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "esm", write: false, logLevel: "silent", plugins: [spot] });
  return found;
}

describe("the MSW entry point in a browser bundle", () => {
  it("imports no Node built-in (node:fs, node:zlib, ...), directly or through the hub", async () => {
    expect(await nodeImports("src/simulator/msw/index.ts")).toEqual([]);
  });

  it("compiles with the DOM library and without Node's types", { timeout: 90_000 }, () => {
    const options: ts.CompilerOptions = {
      ...ts.parseJsonConfigFileContent({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022" } }, ts.sys, at(".")).options,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts", "lib.dom.asynciterable.d.ts"],
      types: [],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      skipLibCheck: true,
    };
    const program = ts.createProgram({ rootNames: [at("src/simulator/msw/index.ts")], options });
    expect(ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`)).toEqual([]);
  });

  it("the check sees a Node built-in when one is imported (the Fastify adapter's tree)", async () => {
    expect((await nodeImports("src/simulator/http/assets.ts")).sort()).toEqual(["src/simulator/http/assets.ts -> node:fs", "src/simulator/http/assets.ts -> node:url"]);
  });
});
