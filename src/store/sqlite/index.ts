import path from "node:path";
import { openDatabase, type DB } from "./db.js";
import type { Store } from "../types.js";
import { sqliteTenants } from "./tenants.js";
import { sqliteApiKeys } from "./api-keys.js";
import { sqliteUsage } from "./usage.js";
import { sqliteAccounts } from "./accounts.js";
import { sqliteQuotas } from "./quotas.js";
import { sqliteContent } from "./content/index.js";
import { sqliteBenchmarks } from "./benchmarks.js";
import { sqliteAdaptations } from "./adaptations.js";
import { sqliteCrawls } from "./crawls.js";
import { sqliteAudit } from "./audit.js";
import { sqliteFreshness } from "./freshness.js";
import { sqliteWebhooks } from "./webhooks.js";
import { sqliteSchedules } from "./schedules.js";
import { sqliteAnalytics } from "./analytics.js";
import { createVectorIndexes, type VectorIndexMode } from "./content/vector-indexes.js";
import type { Quantization } from "./content/ann.js";

export interface SqliteStore extends Store {
  readonly db: DB;
}

export interface SqliteStoreOptions {
  /** default "hnsw": approximate vector graphs saved under DATA_DIR/vectors */
  vectorIndex?: VectorIndexMode;
  /** how the graphs hold vectors (default f16) */
  vectorQuantization?: Quantization;
  /** HNSW ef per graph search (default DEFAULT_ANN_SETTINGS.expansionSearch) */
  vectorEfSearch?: number;
  /** reports background vector-index failures (default: console) */
  onError?: (err: unknown) => void;
  /** filtered vector searches over fewer chunks than this scan them exactly (default 20,000; content/search.ts) */
  filterExactBelow?: number;
}

export function openSqliteStore(dataDir: string, opts: SqliteStoreOptions = {}): SqliteStore {
  const db = openDatabase(path.join(dataDir, "quarry.db"));
  const vectors = createVectorIndexes(db, { mode: opts.vectorIndex ?? "hnsw", dir: path.join(dataDir, "vectors"),
    ann: {
      ...(opts.vectorQuantization ? { quantization: opts.vectorQuantization } : {}),
      ...(opts.vectorEfSearch ? { expansionSearch: opts.vectorEfSearch } : {}),
    },
    onError: opts.onError,
  });
  return {
    kind: "sqlite",
    db,
    tenants: sqliteTenants(db),
    apiKeys: sqliteApiKeys(db),
    usage: sqliteUsage(db),
    accounts: sqliteAccounts(db),
    quotas: sqliteQuotas(db),
    content: sqliteContent(db, vectors, opts.filterExactBelow === undefined ? {} : { filterExactBelow: opts.filterExactBelow }),
    benchmarks: sqliteBenchmarks(db),
    adaptations: sqliteAdaptations(db),
    crawls: sqliteCrawls(db),
    freshness: sqliteFreshness(db),
    webhooks: sqliteWebhooks(db),
    schedules: sqliteSchedules(db),
    audit: sqliteAudit(db),
    analytics: sqliteAnalytics(db),
    async ping() {
      db.prepare("SELECT 1").get();
    },
    async close() {
      if (db.open) vectors.close(); // saves the graphs and prunes the change log behind them
      if (db.open) db.close();
    },
  };
}
