// A check that needs a tool CI installs (Chromium, the consumer matrix's generators): where
// the tool is missing the check cannot run. It says so in a banner, and under CI (CI=true,
// where .ci/run installs the tool) it registers a failing test instead of passing quietly.
import { describe, it } from "vitest";

/**
 * Reports that `check` (in `file`) did not run because `missing` is not there; `install`
 * says how to get it.
 */
export function reportMissingTool(check: string, file: string, missing: string, install: string): void {
  const inCI = Boolean(process.env.CI);
  const line = "=".repeat(78);
  console.warn(
    `\n${line}\n${check.toUpperCase()} DID NOT RUN: ${missing}.\n` +
      `${install} to run ${file}.` +
      `${inCI ? "\nCI is set: this is a failure." : ""}\n${line}\n`,
  );
  if (inCI) {
    describe(check, () => {
      it(`${check} runs in CI (the tool it needs is installed there)`, () => {
        throw new Error(`${missing} in CI: ${install} so ${file} runs`);
      });
    });
  }
}
