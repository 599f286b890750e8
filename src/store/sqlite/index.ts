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
import { sqliteCrawls } from "./crawls.js";
import { sqliteAudit } from "./audit.js";

export interface SqliteStore extends Store {
  readonly db: DB;
}

export function openSqliteStore(dataDir: string): SqliteStore {
  const db = openDatabase(path.join(dataDir, "quarry.db"));
  return {
    kind: "sqlite",
    db,
    tenants: sqliteTenants(db),
    apiKeys: sqliteApiKeys(db),
    usage: sqliteUsage(db),
    accounts: sqliteAccounts(db),
    quotas: sqliteQuotas(db),
    content: sqliteContent(db),
    benchmarks: sqliteBenchmarks(db),
    crawls: sqliteCrawls(db),
    audit: sqliteAudit(db),
    async ping() {
      db.prepare("SELECT 1").get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
