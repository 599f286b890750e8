import type { DB } from "./db.js";
import type { UsageStore } from "../types.js";

export function sqliteUsage(db: DB): UsageStore {
  const queries = db.prepare("SELECT queries FROM usage_counters WHERE tenant_id = ? AND period = ?");
  const sources = db.prepare("SELECT count(*) AS n FROM data_sources WHERE tenant_id = ?");
  const documents = db.prepare("SELECT count(*) AS n FROM documents WHERE tenant_id = ?");
  return {
    async counts(tenantId, period) {
      const q = queries.get(tenantId, period) as { queries: number } | undefined;
      return {
        sources: (sources.get(tenantId) as { n: number }).n,
        documents: (documents.get(tenantId) as { n: number }).n,
        queries: q?.queries ?? 0,
      };
    },
  };
}
