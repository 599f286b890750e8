// Which suites run again on the PostgreSQL store (vitest.config.ts's pg projects, npm run test:pg):
// the HTTP suites that exercise storage, model-free mostly, to keep the addition short.
// Not here: test/hardening/acceptance.test.ts builds its deployment through the SQLite store's own
// API (openSqliteStore) before starting a server on it.
export const PG_SUITES = [
  "test/foundation/**/*.test.ts",
  "test/accounts/**/*.test.ts",
  "test/content/collections.test.ts",
  "test/evaluation/adaptation.test.ts",
  "test/evaluation/adaptation-model.test.ts",
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
  "test/search-api/synonyms.test.ts",
  "test/search-api/typos-prefix.test.ts",
  "test/search-api/languages.test.ts",
  "test/search-api/small-collection-scores.test.ts",
  "test/benchmarks/suites.test.ts",
  "test/benchmarks/tune-jobs.test.ts",
  "test/benchmarks/tune-calibration.test.ts",
  "test/crawl-api/freshness.test.ts",
  "test/webhooks/webhooks.test.ts",
  "test/crawl-api/schedules.test.ts",
  "test/crawl-api/git-source.test.ts",
  "test/analytics/search-log.test.ts",
  "test/analytics/restart.test.ts",
  "test/analytics/popular-suggest.test.ts",
];

// ... and of those, the suites whose jobs are the subject (uploads, crawls, restarts, the queue's
// health), a third time with the jobs on BullMQ in Redis: the others only store rows, and which
// queue ran their few ingest jobs changes nothing they check.
export const QUEUE_SUITES = [
  "test/foundation/system.test.ts",
  "test/content/upload.test.ts",
  "test/content/durability.test.ts",
  "test/crawl-api/crawl.test.ts",
  "test/crawl-api/restart.test.ts",
  "test/crawl-api/policy.test.ts",
];
