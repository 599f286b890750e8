#!/usr/bin/env node
// npm run test:pg: the storage-touching HTTP suites on the PostgreSQL store with the job queue in
// PostgreSQL (DATABASE_URL only), then the suites whose jobs are the subject (uploads, crawls,
// restarts, the queue's health) again on BullMQ in Redis (DATABASE_URL and REDIS_URL,
// REDIS_TEST_URL default the local server): the others only store rows, and which queue ran
// their few ingest jobs changes nothing they check. Without a reachable PostgreSQL that offers pgvector
// (TEST_PG_URL, default the local trust-auth server) it prints why and skips, and without Redis it
// skips the second pass, so a clone without them still passes `npm test` on the embedded store.
import { spawnSync } from "node:child_process";
import pg from "pg";
import { Redis } from "ioredis";

const url = process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
let reason = null;
try {
  await client.connect();
  const r = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  if (r.rowCount === 0) reason = "pgvector is not installed in this PostgreSQL (docs/scale-out.md)";
} catch (err) {
  reason = `PostgreSQL is not reachable at ${url}: ${err.message}`;
} finally {
  await client.end().catch(() => {});
}
if (reason) {
  console.log(`test:pg skipped: ${reason}`);
  process.exit(0);
}
const QUEUE_SUITES = [
  "test/foundation/system.test.ts",
  "test/content/upload.test.ts",
  "test/content/durability.test.ts",
  "test/crawl-api/crawl.test.ts",
  "test/crawl-api/restart.test.ts",
  "test/crawl-api/policy.test.ts",
];
const args = process.argv.slice(2);
const vitest = (env, files = []) =>
  spawnSync("npx", ["vitest", "run", "-c", "vitest.pg.config.ts", ...files, ...args], { stdio: "inherit", env: { ...process.env, ...env } });

console.log("test:pg: PostgreSQL store, job queue in PostgreSQL");
const first = vitest({});
if (first.status !== 0) process.exit(first.status ?? 1);

const redisUrl = process.env.REDIS_TEST_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
redis.on("error", () => {});
const redisUp = await redis.connect().then(() => redis.ping()).then((p) => p === "PONG", () => false);
redis.disconnect();
if (!redisUp) {
  console.log(`test:pg: the BullMQ pass skipped: Redis is not reachable at ${redisUrl}`);
  process.exit(0);
}
console.log("test:pg: PostgreSQL store, job queue on BullMQ in Redis");
// files named on the command line choose the suites themselves
const second = vitest({ TEST_QUEUE: "redis" }, args.some((a) => !a.startsWith("-")) ? [] : QUEUE_SUITES);
process.exit(second.status ?? 1);
