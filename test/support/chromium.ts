// Headless Chromium for the browser checks (reference docs, OAuth consent screen):
// Debian's `chromium` driven by playwright-core. Where it is missing the checks cannot
// run: they say so loudly, and in CI (CI=true, where .ci/run installs it) that fails.
import { describe, it } from "vitest";
import { chromiumPath } from "../../scripts/lib/chromium.ts";

export { CHROMIUM_ARGS, chromiumPath } from "../../scripts/lib/chromium.ts";

/**
 * Chromium's path for a browser check named `check` in `file`. Without Chromium it
 * prints a banner saying the check did not run, and under CI registers a failing test.
 */
export function chromiumFor(check: string, file: string): string | undefined {
  const path = chromiumPath();
  if (path) return path;
  const inCI = Boolean(process.env.CI);
  const line = "=".repeat(78);
  console.warn(
    `\n${line}\n${check.toUpperCase()} DID NOT RUN: no Chromium at /usr/bin/chromium (or CHROMIUM_PATH).\n` +
      `Install it with \`apt-get install -y chromium\` to run ${file}.` +
      `${inCI ? "\nCI is set: this is a failure." : ""}\n${line}\n`,
  );
  if (inCI) {
    describe(check, () => {
      it("Chromium is installed in CI (this browser check must run there)", () => {
        throw new Error(`Chromium is missing in CI: install it (apt-get install -y chromium) so ${file} runs`);
      });
    });
  }
  return undefined;
}
