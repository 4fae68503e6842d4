// The Mock Service Worker entry point bundles for a browser: nothing in its import tree
// (the hub, the contract modules it reads, their packages) imports a Node built-in.
import { builtinModules } from "node:module";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

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

  it("the check sees a Node built-in when one is imported (the Fastify adapter's tree)", async () => {
    expect((await nodeImports("src/simulator/http/assets.ts")).sort()).toEqual(["src/simulator/http/assets.ts -> node:fs", "src/simulator/http/assets.ts -> node:url"]);
  });
});
