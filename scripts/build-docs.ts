// `npm run docs`: builds the reference docs into site/ (gitignored). Open site/index.html
// through any local web server, or run `npm start` and open the address it prints (/docs/).
//   npm run docs -- --out <dir>   builds into another folder
import { resolve } from "node:path";
import { buildDocsSite } from "../src/docs/build.ts";
import { root } from "./lib/paths.ts";

const outFlag = process.argv.indexOf("--out");
const outDir = outFlag > 0 && process.argv[outFlag + 1] ? resolve(process.argv[outFlag + 1]!) : resolve(root, "site");
const started = performance.now();
try {
  await buildDocsSite({ outDir });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`docs built into ${outDir} in ${seconds} s: open index.html through a local web server (for example the simulator's /docs/)`);
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
}
