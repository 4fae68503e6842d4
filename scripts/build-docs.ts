// `npm run docs`: builds the reference docs into site/ (gitignored). Open site/index.html
// through any local web server, or run `npm start` and open the address it prints (/docs/).
//   npm run docs -- --out <dir>   builds into another folder
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildDocsSite } from "../src/docs/build.ts";
import { root } from "./lib/paths.ts";

const USAGE = `Usage: npm run docs -- [--out <dir>]

Builds the reference docs (Redoc, the guides, the error codes, code samples) into site/,
or into <dir>. Serve them with any web server, or run \`npm start\` and open /docs/.`;

let outDir: string;
try {
  const { values } = parseArgs({ options: { out: { type: "string" }, help: { type: "boolean" } }, strict: true });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.out === "") throw new Error("--out needs a folder");
  outDir = resolve(values.out ?? resolve(root, "site"));
} catch (e) {
  console.error(`${(e as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const started = performance.now();
try {
  await buildDocsSite({ outDir });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`docs built into ${outDir} in ${seconds} s: open index.html through a local web server (for example the simulator's /docs/)`);
} catch (e) {
  console.error(`The docs could not be built into ${outDir}: ${(e as Error).message}`);
  process.exitCode = 1;
}
