// The reference docs the simulator serves at /docs are built from the contract
// (`npm run docs`), not committed. `npm start` builds them when they are missing or
// older than the bundled document, so /docs works on a fresh clone.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bundle = fileURLToPath(new URL("../../generated/openapi.json", import.meta.url));

/** Builds the site into `dir` unless it is up to date; resolves true when it built. */
export async function ensureDocsSite(dir: string): Promise<boolean> {
  const index = join(dir, "index.html");
  if (existsSync(index) && statSync(index).mtimeMs >= statSync(bundle).mtimeMs) return false;
  // Loaded only when needed: the docs builder pulls in the renderer.
  const { buildDocsSite } = await import("../docs/build.ts");
  await buildDocsSite({ outDir: dir });
  return true;
}
