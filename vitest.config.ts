import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { pgUnavailableReason } from "./test/helpers/pg.js";
import { PG_SUITES, QUEUE_SUITES } from "./test/helpers/pg-suites.js";
import { REDIS_URL, redisReachable } from "./test/jobs/redis.js";
import LongestFirst from "./test/helpers/sequencer.js";
import { serverBuildDir } from "./test/helpers/server-build.js";

// Projects, so a change can be checked at the speed it needs (npm run test:unit, test:api,
// test:slow); `vitest run` runs them all (unit, slow, isolated, api; pg and pg-redis with TEST_PG=1).
// unit: no server, no model, no network (pure modules, parsers, fixtures on disk).
const UNIT = [
  "test/search/**/*.test.ts",
  "test/ingest/{chunk,limits,parse,sniff,zip}.test.ts", // not ocr (a server, tesseract) nor isolated
  "test/crawl/url-policy.test.ts",
  "test/crawl/parsers.test.ts",
  "test/benchmarks/tuning-search.test.ts",
  "test/bench/{scale-corpus,scale-filters}.test.ts",
  "test/docs/{references,links}.test.ts", // docs/reference/api.md needs a server: api-reference stays in api
  "test/scaleout/compose.test.ts",
  "test/jobs/sleepers.test.ts",
  "test/workers/task-file.test.ts",
  "test/model/{tokenizer,pooling,train,eigen}.test.ts",
  "test/evaluation/held-out-corpora.test.ts",
  "test/analytics/reports.test.ts",
  "test/console/search-filter.test.ts", // the console's filter builder rules, no browser
];

// slow: the embedding model, Chromium, whole processes, scale, soak and scale-out runs.
const SLOW = [
  "test/embed/{onnx,profiles,sentencepiece,static-server,static,use-lite}.test.ts", // not openai: a fake provider
  "test/console/console.test.ts",
  "test/console/crawl-bench.test.ts",
  "test/console/analytics.test.ts",
  "test/console/git-source.test.ts",
  "test/console/search-controls.test.ts",
  "test/crawl/render.test.ts",
  "test/soak/**/*.test.ts",
  "test/scaleout/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "test/benchmarks/scifact.test.ts",
  "test/jobs/process-split.test.ts",
  "test/store/file-store.test.ts", // an s3rver process and a writer process SIGKILLed mid-write
  "test/ingest/isolated.test.ts", // parser workers killed on time and memory limits: 17 s of waiting
  "test/ops/cli.test.ts",
  "test/ops/production.test.ts",
];

// files that need a module cache of their own (each runs in a fresh process): every other project
// shares its worker's modules between files, which saves each file importing the app again (the
// slow files' imports: 108 -> 26 s of worker time)
const ISOLATED = [
  "test/http/scope-matrix.test.ts", // vi.mock("fastify")
];

// api suites that wait on processes, crawls, job queues or the default model: `npm run test:quick`
// (QUICK=1, unit and api) leaves them to `npm test` so the inner loop answers in about a minute
const QUICK_SKIPS = [
  "test/content/{durability,upload,upload-bad-input,related-rules}.test.ts",
  "test/crawl-api/**/*.test.ts",
  "test/search-api/{vector-index,search,fusion-quality,lexical-exactness,exact-match}.test.ts",
  "test/jobs/{fair-scheduling,bullmq-queue,embedded-queue}.test.ts",
  "test/agents/{mcp,client}.test.ts",
  "test/ops/{cli-postgres,crawl-progress}.test.ts",
  "test/analytics/restart.test.ts",
];

// every file in exactly one project: slow leaves unit's files out, api takes the rest
const slowExclude = [...configDefaults.exclude, ...UNIT, ...ISOLATED];
// test/citus runs only on the cluster of `npm run test:citus` (vitest.citus.config.ts)
const apiExclude = [...slowExclude, ...SLOW, "test/citus/**", ...(process.env.QUICK === "1" ? QUICK_SKIPS : [])];

// names this run's PostgreSQL databases, so its teardown leaves another run's alone
process.env.QUARRY_TEST_RUN ??= Math.random().toString(36).slice(2, 8);

// the fast static model for test servers and the processes tests spawn (test/kit/server.ts); the
// worker threads of test servers start from the run's build (src/workers/task-file.ts)
const ENV = { EMBEDDING_PROFILE: process.env.EMBEDDING_PROFILE ?? "quarry-static", QUARRY_COMPILED_WORKERS: serverBuildDir() };

/**
 * With TEST_PG=1 (`npm test`, `npm run test:pg`): the storage suites again on the PostgreSQL store
 * (project pg, its job queue in PostgreSQL) and the queue suites a third time on BullMQ (pg-redis),
 * in the same run as the rest, so the two worker slots stay busy to the end instead of waiting on
 * three runs' slowest files in turn. Each is left out, with the reason printed, when its services
 * do not answer.
 */
async function postgresProjects(): Promise<TestProjectInlineConfiguration[]> {
  if (process.env.TEST_PG !== "1") return [];
  const pgMissing = await pgUnavailableReason();
  if (pgMissing) {
    console.log(`PostgreSQL passes skipped: ${pgMissing}`);
    return [];
  }
  // every server of these suites gets a fresh copy of the run's migrated template database
  // (test/kit/server.ts); pg-global.ts makes the template first and drops it and what restarts
  // left after all files of the run
  const pg: TestProjectInlineConfiguration = { extends: true, test: { name: "pg", include: PG_SUITES, isolate: false, globalSetup: ["./test/helpers/pg-global.ts"], env: { ...ENV, TEST_STORE: "postgres" } } };
  if (!(await redisReachable())) {
    console.log(`BullMQ pass skipped: Redis is not reachable at ${REDIS_URL}`);
    return [pg];
  }
  const pgRedis: TestProjectInlineConfiguration = { extends: true, test: { name: "pg-redis", include: QUEUE_SUITES, isolate: false, globalSetup: ["./test/helpers/pg-global.ts"], env: { ...ENV, TEST_STORE: "postgres", TEST_QUEUE: "redis" } } };
  return [pg, pgRedis];
}

const postgres = await postgresProjects();

export default defineConfig({
  test: {
    // no root include: a project's include would be appended to it (extends merges arrays)
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    env: ENV,
    // the compiled server that suites start as processes (test/helpers/server-build.ts)
    globalSetup: ["./test/helpers/server-build.ts"],
    // 2 cores, three files at a time: most suites wait on processes, crawls, queues and timers for
    // part of their time, which a third file fills (the test servers' static model is cheap)
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    coverage: { provider: "v8", include: ["src/**/*.ts"], reporter: ["text-summary", "html"], reportsDirectory: "test-output/coverage" },
    projects: [
      // unit, slow and api files share their worker's module cache (isolate: false): each file would
      // otherwise import and transform the app's whole module graph again, most of a small suite's
      // time. A file that changes process-wide state (env) undoes it; one that mocks a module is
      // listed in ISOLATED.
      { extends: true, test: { name: "unit", include: UNIT, isolate: false } },
      { extends: true, test: { name: "slow", include: SLOW, exclude: slowExclude, isolate: false } },
      { extends: true, test: { name: "isolated", include: ISOLATED } },
      // api: the HTTP suites and everything not placed above, so a new suite lands here
      { extends: true, test: { name: "api", include: ["test/**/*.test.ts"], exclude: apiExclude, isolate: false } },
      ...postgres,
    ],
  },
});
