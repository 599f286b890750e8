import type { Pool } from "./db.js";
import type { QuotaStore } from "../account-types.js";

// Check and increment are one statement: the upsert's row lock serialises concurrent requests of
// every API process, so none slips past the limit and none is counted twice. The SELECT ... WHERE
// guards the first insert of a period; DO UPDATE ... WHERE guards every later one.
const CONSUME = `
  INSERT INTO usage_counters (tenant_id, period, queries)
  SELECT $1, $2, $3::bigint WHERE $4::bigint IS NULL OR $3::bigint <= $4::bigint
  ON CONFLICT (tenant_id, period) DO UPDATE SET queries = usage_counters.queries + excluded.queries
    WHERE $4::bigint IS NULL OR usage_counters.queries + excluded.queries <= $4::bigint
  RETURNING queries`;

export function pgQuotas(pool: Pool): QuotaStore {
  return {
    async consumeQueries(tenantId, period, n, limit) {
      const r = await pool.query<{ queries: number }>(CONSUME, [tenantId, period, n, limit]);
      if (r.rows[0]) return { ok: true, used: r.rows[0].queries };
      const c = await pool.query<{ queries: number }>("SELECT queries FROM usage_counters WHERE tenant_id = $1 AND period = $2", [tenantId, period]);
      return { ok: false, used: c.rows[0]?.queries ?? 0 };
    },
  };
}
