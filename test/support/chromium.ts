// Headless Chromium for the browser checks (reference docs, OAuth consent screen):
// Debian's `chromium` driven by playwright-core. Where it is missing the checks cannot
// run: they say so loudly, and in CI (CI=true, where .ci/run installs it) that fails.
import { chromiumPath } from "../../scripts/lib/chromium.ts";
import { reportMissingTool } from "./missing-tool.ts";

export { CHROMIUM_ARGS, chromiumPath } from "../../scripts/lib/chromium.ts";

/**
 * Chromium's path for a browser check named `check` in `file`. Without Chromium it
 * prints a banner saying the check did not run, and under CI registers a failing test.
 */
export function chromiumFor(check: string, file: string): string | undefined {
  const path = chromiumPath();
  if (!path) reportMissingTool(check, file, "no Chromium at /usr/bin/chromium (or CHROMIUM_PATH)", "Install it with `apt-get install -y chromium`");
  return path;
}
