// The scale-out store: every store interface on one PostgreSQL database (with pgvector), shared
// by any number of API and worker processes. Migrations run at open (one process at a time).
import type { Store } from "../types.js";
import { createPool, migrate, type Pool } from "./db.js";
import { pgTenants } from "./tenants.js";
import { pgApiKeys } from "./api-keys.js";
import { pgUsage } from "./usage.js";
import { pgAccounts } from "./accounts.js";
import { pgQuotas } from "./quotas.js";
import { pgBenchmarks } from "./benchmarks.js";
import { pgAdaptations } from "./adaptations.js";
import { pgCrawls } from "./crawls.js";
import { pgAudit } from "./audit.js";
import { pgFreshness } from "./freshness.js";
import { pgWebhooks } from "./webhooks.js";
import { pgSchedules } from "./schedules.js";
import { pgAnalytics } from "./analytics.js";
import { postgresContent } from "./content/index.js";

export interface PostgresStore extends Store {
  readonly pool: Pool;
}

export interface PostgresStoreOptions {
  /** connections per process (default 10) */
  poolSize?: number;
  /** chunks held as in-memory BM25 indexes of settled tenants (content/lexical-cache.ts; default 0: none) */
  lexicalCacheChunks?: number;
}

export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const pool = createPool(url, { max: opts.poolSize });
  try {
    await migrate(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  // Query counters are written on every search: their commits skip the WAL flush (~8 ms p50 here
  // per search). A crash may forget the last moments of counts (in the tenant's favour); the
  // upsert stays one atomic statement, so limits are still exact across processes.
  const counters = createPool(url, { max: 4, asyncCommit: true });
  const content = postgresContent(pool, { lexicalCache: { maxChunks: opts.lexicalCacheChunks ?? 0 } });
  let closed: Promise<void> | null = null;
  return {
    kind: "postgres",
    pool,
    tenants: pgTenants(pool),
    apiKeys: pgApiKeys(pool),
    usage: pgUsage(pool),
    accounts: pgAccounts(pool),
    quotas: pgQuotas(counters),
    content,
    benchmarks: pgBenchmarks(pool),
    adaptations: pgAdaptations(pool),
    crawls: pgCrawls(pool),
    freshness: pgFreshness(pool),
    webhooks: pgWebhooks(pool),
    schedules: pgSchedules(pool),
    audit: pgAudit(pool),
    analytics: pgAnalytics(pool),
    async ping() {
      await pool.query("SELECT 1");
    },
    // idempotent like the SQLite store's: a runtime shutting down after a failed start closes twice
    close() {
      closed ??= content.close().then(() => Promise.all([pool.end(), counters.end()])).then(() => undefined);
      return closed;
    },
  };
}
