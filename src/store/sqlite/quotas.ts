import type { DB } from "./db.js";
import type { QuotaStore } from "../account-types.js";

export function sqliteQuotas(db: DB): QuotaStore {
  // Check and increment are one statement: the row lock of the upsert serialises concurrent
  // requests, so none can slip past the limit and none is counted twice. The SELECT ... WHERE
  // guards the first insert of a period; DO UPDATE ... WHERE guards every later one.
  const consume = db.prepare(`
    INSERT INTO usage_counters (tenant_id, period, queries)
    SELECT @tenant, @period, @n WHERE @limit IS NULL OR @n <= @limit
    ON CONFLICT (tenant_id, period) DO UPDATE SET queries = usage_counters.queries + excluded.queries
      WHERE @limit IS NULL OR usage_counters.queries + excluded.queries <= @limit
    RETURNING queries`);
  const current = db.prepare("SELECT queries FROM usage_counters WHERE tenant_id = ? AND period = ?");
  return {
    async consumeQueries(tenantId, period, n, limit) {
      const row = consume.get({ tenant: tenantId, period, n, limit }) as { queries: number } | undefined;
      if (row) return { ok: true, used: row.queries };
      const c = current.get(tenantId, period) as { queries: number } | undefined;
      return { ok: false, used: c?.queries ?? 0 };
    },
  };
}
