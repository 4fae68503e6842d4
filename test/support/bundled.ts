// The repository's command lines as the tests start them: `npm start` (src/simulator/main.ts)
// and `npm run conformance` (src/conformance/main.ts), each bundled once per test worker by
// esbuild, the compiler tsx runs them with. Why: through tsx a start costs about 1 s of CPU
// more than Node's own start (its loader thread resolves and compiles each module: 145
// sources for `npm start`, 273 for `npm run conformance`, and the packages' modules), and a
// test run starts these programs about 50 times. The bundle is the same
// sources: each module keeps its own import.meta.url, so what a module finds beside its
// source (the contract, the seed rules, the docs site) it finds as under tsx; the packages
// they import stay imports, resolved from the repository's node_modules (which is why the
// bundles live in node_modules/.cache). One start of each program through tsx itself stays
// (test/simulator/server.test.ts, test/conformance/cli.test.ts): `npm start` as the README
// runs it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { at } from "../../scripts/lib/paths.ts";

/** The programs, by the path of their source. */
export type Program = "src/simulator/main.ts" | "src/conformance/main.ts";

/**
 * A source's `import.meta.url` written in as the address of its file: a bundle has one
 * address for all its modules, and the sources find files beside them (the contract, the
 * seed rules, the docs site). Also what test/docs/sample-runner.ts bundles samples with.
 */
export const ownImportMetaUrl: Plugin = {
  name: "own-import-meta-url",
  setup(plugin) {
    plugin.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      if (!path.startsWith(at("src"))) return undefined;
      const text = await readFile(path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      return { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)), loader: "ts" };
    });
  },
};

/** This run's folder of bundles (vitest.config.ts names the run; test/support/packed-setup.ts removes the folder at its end). */
export function bundlesFolder(): string {
  return at(`node_modules/.cache/hub-test-bundles-${process.env.HUB_TEST_RUN ?? `pid-${process.pid}`}`);
}

const bundles = new Map<Program, Promise<string>>();

/** The bundled program's path (a .mjs that `node` runs as it is), bundled on the first call in this worker. */
export function bundled(program: Program): Promise<string> {
  let done = bundles.get(program);
  if (!done) {
    // A file per worker: two workers never write the same file.
    const outfile = join(bundlesFolder(), `${process.pid}-${program.replace(/[/.]/g, "-")}.mjs`);
    done = build({ entryPoints: [at(program)], bundle: true, platform: "node", format: "esm", packages: "external", target: "node20", outfile, plugins: [ownImportMetaUrl], logLevel: "silent" }).then(() => outfile);
    bundles.set(program, done);
  }
  return done;
}

/** How a test starts a program: bundled, or `tsx: true` through tsx, as its npm script runs it. */
export interface Launch {
  tsx?: boolean;
}

/** Node's arguments that start `program` (the program's own arguments follow them). */
export async function programArgs(program: Program, how: Launch = {}): Promise<string[]> {
  return how.tsx ? ["--import", "tsx", program] : [await bundled(program)];
}
