import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep the file-level parallelism modest so servers started by
    // tests get their share of CPU.
    maxWorkers: 2,
  },
});
