// `npm run test:citus` (scripts/test-citus.mjs, which starts the cluster and sets TEST_PG_URL to
// its coordinator and TEST_CITUS_WORKERS): the store conformance suites, the Citus checks, the HTTP
// suites of the features whose queries are newest (CITUS_HTTP_SUITES) on the PostgreSQL store, and
// the 2 API + 2 worker scale-out run, on a coordinator and two workers. CITUS_PG_SUITES=all runs
// every HTTP suite of the pg project instead (test/helpers/pg-suites.ts; about 4 more minutes).
// test/citus is in no project of vitest.config.ts: without the cluster it has nothing to run against.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";
import { PG_SUITES } from "./test/helpers/pg-suites.js";

const { projects: _projects, ...baseTest } = base.test ?? {};

/**
 * The pg project's suites that run on Citus by default: the search path's newer reads (typo and
 * prefix candidates, languages, synonyms, filters and facets), the search log and its reports,
 * git data sources and crawl freshness, a collection's adapted model (its file in stored_files,
 * its record in the collection's settings; a whole-model one's chunks marked for the backfill on
 * the tenant's shard). Each must be one of PG_SUITES.
 */
export const CITUS_HTTP_SUITES = [
  "test/search-api/typos-prefix.test.ts",
  "test/search-api/languages.test.ts",
  "test/search-api/synonyms.test.ts",
  "test/search-api/filters.test.ts",
  "test/analytics/search-log.test.ts",
  "test/analytics/restart.test.ts",
  "test/crawl-api/git-source.test.ts",
  "test/crawl-api/freshness.test.ts",
  "test/evaluation/adaptation.test.ts",
  "test/evaluation/adaptation-model.test.ts",
];
for (const f of CITUS_HTTP_SUITES) if (!PG_SUITES.includes(f)) throw new Error(`vitest.citus.config.ts: ${f} is not in PG_SUITES`);

export default defineConfig({
  ...base,
  test: {
    ...baseTest,
    include: [
      "test/citus/**/*.test.ts",
      "test/store/**/*.test.ts",
      // the search log's text-form rows converted by migrations 120-121 on the cluster
      "test/analytics/compact-migration.test.ts",
      // migrate-data's batched chunk writes into a distributed database
      "test/scaleout/migrate-data-batches.test.ts",
      ...(process.env.CITUS_PG_SUITES === "all" ? PG_SUITES : CITUS_HTTP_SUITES),
      "test/scaleout/two-by-two.test.ts",
    ],
    // the HTTP suites' servers on the PostgreSQL store, a fresh database each (test/kit/server.ts)
    env: { ...baseTest.env, TEST_STORE: "postgres" },
  },
});
