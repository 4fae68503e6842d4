import { configDefaults, defineConfig } from "vitest/config";

/**
 * The Playwright proof (a 4-worker suite in a fresh project) packs both packages as the
 * consumer test does, and packing rebuilds dist/ in place: the two must not run at once.
 * It runs last, alone, in a group of its own (its four workers and Chromium want the
 * cores besides).
 */
const LAST = ["test/devtools/playwright.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep the file-level parallelism modest so servers started by
    // tests get their share of CPU.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "tests", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...LAST], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: "last", include: LAST, sequence: { groupOrder: 1 } } },
    ],
  },
});
