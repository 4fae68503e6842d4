// The reference docs the simulator serves at /docs are built from the contract
// (`npm run docs`), not committed. `npm start` builds them when they are missing, older
// than the bundled document or of an older format, so /docs works on a fresh clone.
import { fileURLToPath } from "node:url";
import { siteIsCurrent } from "../docs/site-format.ts";

const bundle = fileURLToPath(new URL("../../generated/openapi.json", import.meta.url));

/** Builds the site into `dir` unless it is up to date; resolves true when it built. */
export async function ensureDocsSite(dir: string): Promise<boolean> {
  if (siteIsCurrent(dir, bundle)) return false;
  // Loaded only when needed: the docs builder pulls in the renderer.
  const { buildDocsSite } = await import("../docs/build.ts");
  await buildDocsSite({ outDir: dir });
  return true;
}
