import path from "node:path";
import { openDatabase, type DB } from "./db.js";
import type { Store } from "../types.js";
import { sqliteTenants } from "./tenants.js";
import { sqliteApiKeys } from "./api-keys.js";
import { sqliteUsage } from "./usage.js";

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
    async ping() {
      db.prepare("SELECT 1").get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
