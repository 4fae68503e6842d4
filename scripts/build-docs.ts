// `npm run docs`: builds the reference docs into site/ (gitignored). Open site/index.html
// through any local web server, or run `npm start` and open the address it prints (/docs/).
// Then prints the reference page's weight and its first render in headless Chromium.
//   npm run docs -- --out <dir>   builds into another folder
//   npm run docs -- --no-figures  builds without measuring the page
//   DOCS_FIGURE_ROUNDS=5          cold loads to take the median of (default 3)
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildDocsSite } from "../src/docs/build.ts";
import { CONSOLE_APP } from "../src/docs/console/bundle.ts";
import { REFERENCE_PAGE } from "../src/docs/routes.ts";
import { root } from "./lib/paths.ts";
import { load, referenceFigures, size } from "./lib/reference-figures.ts";

const USAGE = `Usage: npm run docs -- [--out <dir>] [--no-figures]

Builds the reference docs (Redoc with a try-it panel on every operation, the guides, the
error codes, code samples) into site/, or into <dir>, then prints the reference page's
weight and first render in headless Chromium (--no-figures: not measured). Serve them with
any web server, or run \`npm start\` and open /docs/.`;

/** Where the first render is measured: the operation most readers open first. */
const ROUTE = "#/generations/submitgeneration";
const TITLE = "Submit a generation";

let outDir: string;
let figures = true;
try {
  const { values } = parseArgs({ options: { out: { type: "string" }, "no-figures": { type: "boolean" }, help: { type: "boolean" } }, strict: true });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.out === "") throw new Error("--out needs a folder");
  outDir = resolve(values.out ?? resolve(root, "site"));
  figures = !values["no-figures"];
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
  process.exit(1);
}
if (figures) {
  try {
    const measured = await referenceFigures(outDir, REFERENCE_PAGE, ROUTE, TITLE, Number(process.env.DOCS_FIGURE_ROUNDS ?? 3));
    if ("skipped" in measured) {
      console.log(`reference page: not measured (${measured.skipped})`);
    } else {
      const f = measured.figures;
      const files = [...f.files].sort((a, b) => b.bytes - a.bytes).map((x) => `${x.path.replace(/^\/docs\//, "")} ${size(x.bytes)}`).join(", ");
      console.log(`reference page weight: ${size(f.bytes)} in ${f.files.length} files, as served (${files}); a try-it panel's first open loads ${CONSOLE_APP} (${size(statSync(join(outDir, CONSOLE_APP)).size)})`);
      console.log(`first render in Chromium (${REFERENCE_PAGE}${ROUTE}, median of ${measured.rounds.length} cold load${measured.rounds.length === 1 ? "" : "s"}): first paint ${Math.round(f.firstPaintMs)} ms, the operation shown at ${Math.round(f.shownMs)} ms (load average ${load()})`);
      if (f.outside.length || f.refused.length) {
        console.error(`the reference page asked for ${f.outside.length} address(es) outside the site and its policy refused ${f.refused.length} thing(s): ${[...f.outside, ...f.refused].join(", ")}`);
        process.exitCode = 1;
      }
    }
  } catch (e) {
    console.error(`reference page: the measure failed: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
