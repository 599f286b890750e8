import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // 2 cores: two test files at a time keeps model-heavy suites from starving each other
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
