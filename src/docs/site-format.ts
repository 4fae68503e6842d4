// Whether a built docs site is current: built by this version of the builder (the format
// below, written into the site's marker file) and not older than the bundled contract. A
// site built before the try-it panel lacks it, though newer than the contract; `npm start`
// and the dev tools' build rebuild such a site. Kept free of the builder's imports, so
// the simulator can ask without loading the renderer.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The file that marks a folder as a built site (a rebuild may clear such a folder, and nothing else). */
export const SITE_MARKER = ".docs-site";

/** Changes whenever a site built before would lack something the simulator or the tests expect. */
export const SITE_FORMAT = "format 2 (the try-it panel)";

/**
 * The marker's text: written when the build starts (`complete: false`: the folder is a
 * site's and may be cleared) and again when it ends. Only a finished build is current, so
 * a build cut short (a killed test run, Ctrl-C) is built again, never served or packed.
 */
export function markerText(complete = true): string {
  return complete ? `Built by src/docs/build.ts (npm run docs), ${SITE_FORMAT}. Safe to delete.\n` : "Being built by src/docs/build.ts (npm run docs); not complete. Safe to delete.\n";
}

/** True when `dir` holds a site of this format, built after `bundle` last changed. */
export function siteIsCurrent(dir: string, bundle: string): boolean {
  const index = join(dir, "index.html");
  const marker = join(dir, SITE_MARKER);
  if (!existsSync(index) || !existsSync(marker)) return false;
  return readFileSync(marker, "utf8").includes(SITE_FORMAT) && statSync(index).mtimeMs >= statSync(bundle).mtimeMs;
}
