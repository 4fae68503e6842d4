// Headless Chromium for the browser checks (reference docs, OAuth consent screen, the
// inspector, MSW in a page, ...): Debian's `chromium` driven by playwright-core, launched
// with the flags of a closed network, and closed again, in one place. Where it is missing
// the checks cannot run: they say so loudly, and in CI (CI=true, where .ci/run installs
// it) that fails.
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_ARGS, chromiumPath } from "../../scripts/lib/chromium.ts";
import { reportMissingTool } from "./missing-tool.ts";

/** Chromium for the checks of one test file. */
export interface Chromium {
  /** Its path; undefined where it is missing (the checks are then skipped: `describe.runIf(chromium.path)`). */
  readonly path: string | undefined;
  /** Launches it headless with the flags of a closed network, and `args` besides (a `--host-resolver-rules`, say). */
  launch(args?: readonly string[]): Promise<Browser>;
  /** Closes every browser `launch` gave (in `afterAll`). */
  close(): Promise<void>;
}

/**
 * Chromium for a browser check named `check` in `file`. Without Chromium it prints a
 * banner saying the check did not run, and under CI registers a failing test.
 */
export function chromiumFor(check: string, file: string): Chromium {
  const path = chromiumPath();
  if (!path) reportMissingTool(check, file, "no Chromium at /usr/bin/chromium (or CHROMIUM_PATH)", "Install it with `apt-get install -y chromium`");
  const launched: Browser[] = [];
  return {
    path,
    async launch(args = []) {
      if (!path) throw new Error(`${check}: no Chromium to launch`);
      const browser = await chromium.launch({ executablePath: path, args: [...CHROMIUM_ARGS, ...args] });
      launched.push(browser);
      return browser;
    },
    async close() {
      for (const browser of launched.splice(0)) await browser.close();
    },
  };
}
