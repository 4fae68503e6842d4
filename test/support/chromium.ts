// Headless Chromium for the browser checks (reference docs, OAuth consent screen):
// Debian's `chromium` driven by playwright-core. Where it is missing the checks cannot
// run: they say so loudly, and in CI (CI=true, where .ci/run installs it) that fails.
import { existsSync } from "node:fs";
import { describe, it } from "vitest";

export function chromiumPath(): string | undefined {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((p) => existsSync(p));
}

/** Flags for a headless Chromium on a closed network (see the toolchain notes). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

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
