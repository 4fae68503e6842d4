import { randomUUID } from "node:crypto";
import { configDefaults, defineConfig } from "vitest/config";

// The run's name: the test files that install the packed packages share one packing of
// them per run (test/support/packed.ts), and the run's bundled programs live in a folder of
// its name (test/support/bundled.ts); the workers inherit it.
process.env.HUB_TEST_RUN ??= randomUUID();

/**
 * The Playwright proof (a 4-worker suite in a fresh project, Chromium in its workers) runs
 * last, alone, in a group of its own: its four workers want the two cores.
 */
const LAST = ["test/devtools/playwright.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep the file-level parallelism modest so servers started by
    // tests get their share of CPU.
    maxWorkers: 2,
    // One module cache per worker, not per file: the files import the same contract,
    // simulator and suite, and loading them afresh for each of 136 files cost 67 s of the
    // run's import time (13 s shared). So a test file that changes a global (process.env,
    // globalThis.fetch) puts it back: the next file in the worker would see it.
    isolate: false,
    globalSetup: ["test/support/packed-setup.ts"],
    // TEST_CPU_LOG=/tmp/cpu.tsv npx vitest run: each file's CPU (docs/contributing.md).
    setupFiles: process.env.TEST_CPU_LOG ? ["test/support/cpu-per-file.ts"] : [],
    projects: [
      { extends: true, test: { name: "tests", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...LAST], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "last", include: LAST, sequence: { groupOrder: 1 } } },
    ],
  },
});
