import type { DB } from "./db.js";
import type { UsageStore } from "../types.js";

export function sqliteUsage(db: DB): UsageStore {
  const hasTable = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  return {
    async counts(tenantId, period) {
      const q = db.prepare("SELECT queries FROM usage_counters WHERE tenant_id = ? AND period = ?").get(tenantId, period) as
        | { queries: number }
        | undefined;
      const count = (table: string) =>
        hasTable(table)
          ? (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = ?`).get(tenantId) as { n: number }).n
          : 0;
      return { sources: count("data_sources"), documents: count("documents"), queries: q?.queries ?? 0 };
    },
  };
}
