import { configDefaults, defineConfig } from "vitest/config";

// Three projects, so a change can be checked at the speed it needs (npm run test:unit, test:api,
// test:slow); `vitest run` runs all three, exactly the files it ran before they existed.
// unit: no server, no model, no network (pure modules, parsers, fixtures on disk).
const UNIT = [
  "test/search/**/*.test.ts",
  "test/ingest/{chunk,limits,parse,sniff,zip}.test.ts", // not ocr (a server, tesseract) nor isolated
  "test/crawl/url-policy.test.ts",
  "test/crawl/parsers.test.ts",
  "test/benchmarks/tuning-search.test.ts",
  "test/bench/scale-corpus.test.ts",
  "test/docs/{references,links}.test.ts", // docs/reference/api.md needs a server: api-reference stays in api
  "test/scaleout/compose.test.ts",
  "test/jobs/sleepers.test.ts",
  "test/model/{tokenizer,pooling,train,eigen,held-out-sources}.test.ts",
  "test/analytics/reports.test.ts",
];

// slow: the embedding model, Chromium, whole processes, scale, soak and scale-out runs.
const SLOW = [
  "test/embed/{onnx,profiles,sentencepiece,static-server,static,use-lite}.test.ts", // not openai: a fake provider
  "test/console/console.test.ts",
  "test/console/crawl-bench.test.ts",
  "test/console/analytics.test.ts",
  "test/crawl/render.test.ts",
  "test/soak/**/*.test.ts",
  "test/scaleout/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "test/benchmarks/scifact.test.ts",
  "test/jobs/process-split.test.ts",
  "test/ingest/isolated.test.ts", // parser workers killed on time and memory limits: 17 s of waiting
  "test/ops/cli.test.ts",
  "test/ops/production.test.ts",
  "test/http/scope-matrix.test.ts", // vi.mock("fastify"): a module mock needs a module cache of its own
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
];

// every file in exactly one project: slow leaves unit's files out, api takes the rest
const slowExclude = [...configDefaults.exclude, ...UNIT];
const apiExclude = [...slowExclude, ...SLOW, ...(process.env.QUICK === "1" ? QUICK_SKIPS : [])];

export default defineConfig({
  test: {
    // no root include: a project's include would be appended to it (extends merges arrays)
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // the fast static model for test servers and the processes tests spawn (test/kit/server.ts)
    env: { EMBEDDING_PROFILE: process.env.EMBEDDING_PROFILE ?? "quarry-static" },
    // 2 cores: two test files at a time keeps model-heavy suites from starving each other
    maxWorkers: 2,
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
    coverage: { provider: "v8", include: ["src/**/*.ts"], reporter: ["text-summary", "html"], reportsDirectory: "test-output/coverage" },
    projects: [
      // unit and api files share their worker's module cache (isolate: false): each file would
      // otherwise import and transform the app's whole module graph again, most of a small suite's
      // time. A file that changes process-wide state (env, mocks) undoes it, or runs in slow.
      { extends: true, test: { name: "unit", include: UNIT, isolate: false } },
      { extends: true, test: { name: "slow", include: SLOW, exclude: slowExclude } },
      // api: the HTTP suites and everything not placed above, so a new suite lands here
      { extends: true, test: { name: "api", include: ["test/**/*.test.ts"], exclude: apiExclude, isolate: false } },
    ],
  },
});
