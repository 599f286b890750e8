// `npm run test:citus` (scripts/test-citus.mjs, which starts the cluster and sets TEST_PG_URL to
// its coordinator and TEST_CITUS_WORKERS): the store conformance suites, the Citus checks and the
// 2 API + 2 worker scale-out run, on a coordinator and two workers. test/citus is in no project of
// vitest.config.ts: without the cluster it has nothing to run against.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

const { projects: _projects, ...baseTest } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    include: ["test/citus/**/*.test.ts", "test/store/**/*.test.ts", "test/scaleout/two-by-two.test.ts"],
  },
});
