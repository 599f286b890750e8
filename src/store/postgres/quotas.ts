import type { Pool } from "./db.js";
import type { QuotaStore } from "../account-types.js";

// Check and increment are one statement: the upsert's row lock serialises concurrent requests of
// every API process, so none slips past the limit and none is counted twice. DO UPDATE ... WHERE
// guards every increment; a request larger than the limit never reaches the statement. A plain
// VALUES upsert, no NULL parameter: Citus routes it to the tenant's shard as it is.
const CONSUME = `
  INSERT INTO usage_counters (tenant_id, period, queries) VALUES ($1, $2, $3::bigint)
  ON CONFLICT (tenant_id, period) DO UPDATE SET queries = usage_counters.queries + excluded.queries
    WHERE usage_counters.queries + excluded.queries <= $4::bigint
  RETURNING queries`;

export function pgQuotas(pool: Pool): QuotaStore {
  return {
    async consumeQueries(tenantId, period, n, limit) {
      if (limit === null || n <= limit) {
        const r = await pool.query<{ queries: number }>(CONSUME, [tenantId, period, n, limit ?? Number.MAX_SAFE_INTEGER]);
        if (r.rows[0]) return { ok: true, used: r.rows[0].queries };
      }
      const c = await pool.query<{ queries: number }>("SELECT queries FROM usage_counters WHERE tenant_id = $1 AND period = $2", [tenantId, period]);
      return { ok: false, used: c.rows[0]?.queries ?? 0 };
    },
  };
}
