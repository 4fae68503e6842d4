import { randomUUID } from "node:crypto";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
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

/**
 * Started before every other file: the type check (`tsc` in a process of its own, about
 * 10 to 15 s) overlaps the others' waits instead of trailing the run, as it would where
 * vitest's order (the largest files first, then by last duration) puts a small file.
 */
const FIRST = ["test/typecheck.test.ts"];

class FirstThenVitestOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (f: TestSpecification) => FIRST.includes(relative(process.cwd(), f.moduleId));
    return [...sorted.filter(first), ...sorted.filter((f) => !first(f))];
  }
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Three workers on two cores: the files wait as well as compute (browsers, installs,
    // spawned programs, quiet looks at event streams), so on a quiet machine a third worker
    // fills the cores' idle share (2026-11-29: 258 s with two, 234 s with three); on a loaded
    // one it changed nothing (395 s against 390 to 408 s). docs/contributing.md has the figures.
    maxWorkers: 3,
    sequence: { sequencer: FirstThenVitestOrder },
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
