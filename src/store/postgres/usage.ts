import type { Pool } from "./db.js";
import type { UsageStore } from "../types.js";

export function pgUsage(pool: Pool): UsageStore {
  return {
    async counts(tenantId, period) {
      const r = await pool.query<{ sources: number; documents: number; queries: number | null }>(
        `SELECT (SELECT count(*) FROM data_sources WHERE tenant_id = $1) AS sources,
                (SELECT count(*) FROM documents WHERE tenant_id = $1) AS documents,
                (SELECT queries FROM usage_counters WHERE tenant_id = $1 AND period = $2) AS queries`,
        [tenantId, period],
      );
      const row = r.rows[0]!;
      return { sources: row.sources, documents: row.documents, queries: row.queries ?? 0 };
    },
  };
}
