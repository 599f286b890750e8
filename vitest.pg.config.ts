// The HTTP suites that exercise storage, run again on the PostgreSQL store (TEST_STORE=postgres:
// every test server gets a fresh database; scripts/test-pg.mjs runs them a second time with
// TEST_QUEUE=redis, the jobs on BullMQ). Model-free suites mostly, to keep the addition short.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// the base's settings without its projects (they would replace this file list)
const { projects: _projects, ...baseTest } = base.test ?? {};

// spread, not mergeConfig: mergeConfig would append to the base's include list
export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    // Not here: test/hardening/acceptance.test.ts builds its deployment through the SQLite store's
    // own API (openSqliteStore) before starting a server on it.
    include: [
      "test/foundation/**/*.test.ts",
      "test/accounts/**/*.test.ts",
      "test/content/collections.test.ts",
      "test/content/upload.test.ts",
      "test/content/related-rules.test.ts",
      "test/content/durability.test.ts",
      "test/content/upload-bad-input.test.ts",
      "test/crawl-api/crawl.test.ts",
      "test/crawl-api/restart.test.ts",
      "test/crawl-api/policy.test.ts",
      "test/hardening/audit-log.test.ts",
      "test/search-api/lexical-exactness.test.ts",
      "test/search-api/exact-match.test.ts",
      "test/search-api/filters.test.ts",
      "test/search-api/blend-explain.test.ts",
      "test/benchmarks/suites.test.ts",
      "test/benchmarks/tune-jobs.test.ts",
      "test/benchmarks/tune-calibration.test.ts",
      "test/analytics/search-log.test.ts",
    ],
    globalSetup: ["./test/helpers/pg-global.ts"],
    // these are api-project suites: they share a worker's module cache there too (vitest.config.ts)
    isolate: false,
    env: { ...baseTest.env, TEST_STORE: "postgres" },
  },
});
