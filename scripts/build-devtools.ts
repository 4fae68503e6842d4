// Builds the dev-tools package (packages/devtools, `@generation-hub/devtools`) from this
// repository's sources: the simulator, the conformance suite and the contract at run time,
// compiled to JavaScript with declarations (no tsx or TypeScript at run time), plus the
// files they read beside their code: the bundled contract, the seed rules, the result
// files the simulator serves, and the reference docs, built here so a user's machine
// never builds them. Run by the package's `prepack` (`npm pack -w packages/devtools`).
import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildDocsSite } from "../src/docs/build.ts";
import { siteIsCurrent } from "../src/docs/site-format.ts";
import { at } from "./lib/paths.ts";

const pkg = at("packages/devtools");
const dist = join(pkg, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [at("node_modules/typescript/bin/tsc"), "-p", join(pkg, "tsconfig.json")], { stdio: ["ignore", process.stderr, process.stderr] });

/** Files the compiled code reads at run time, at the same place relative to it as in the repository. */
const beside = [
  "generated/openapi.json",
  "generated/openapi.yaml",
  "docs/seed-rules.yaml",
  "src/simulator/assets/image.png",
  "src/simulator/assets/video.mp4",
  "src/simulator/assets/model.glb",
];
for (const file of beside) cpSync(at(file), join(dist, file));
// The scenario format at the package's root, where a scenario file's `$schema` can name it
// (`./node_modules/@generation-hub/devtools/scenario.schema.json`) and the exports map it.
cpSync(at("src/simulator/scenarios/scenario.schema.json"), join(pkg, "scenario.schema.json"));

// The reference docs, as `npm run docs` builds them (the simulator serves them at /docs/).
const site = at("site");
if (!siteIsCurrent(site, at("generated/openapi.json"))) await buildDocsSite({ outDir: site });
cpSync(site, join(dist, "site"), { recursive: true });

console.error(`built ${dist}`);
