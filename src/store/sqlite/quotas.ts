import type { DB } from "./db.js";
import type { QueryAdmission, QuotaStore } from "../account-types.js";
import { parseJson } from "../json.js";

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
  const tenant = db.prepare("SELECT id, name, slug, plan, verified, created_at FROM tenants WHERE id = ?");
  const scope = db.prepare(`SELECT c.settings, c.language,
      (SELECT json_group_array(cs.data_source_id) FROM collection_sources cs WHERE cs.collection_id = c.id) AS ids
    FROM collections c WHERE c.tenant_id = ? AND c.id = ?`);
  const countQueries = (tenantId: string, period: string, n: number, limit: number | null) => {
    const row = consume.get({ tenant: tenantId, period, n, limit }) as { queries: number } | undefined;
    if (row) return { ok: true, used: row.queries };
    const c = current.get(tenantId, period) as { queries: number } | undefined;
    return { ok: false, used: c?.queries ?? 0 };
  };
  // the PostgreSQL store's one statement (postgres/quotas.ts) as one transaction here
  const admit = db.transaction((tenantId: string, collectionId: string, period: string, n: number, plan: string, limit: number | null): QueryAdmission => {
    const t = tenant.get(tenantId) as { id: string; name: string; slug: string; plan: string; verified: number; created_at: string } | undefined;
    if (!t) return { tenant: null, scope: null, ok: false, used: 0 };
    const c = scope.get(tenantId, collectionId) as { settings: string; language: string | null; ids: string } | undefined;
    const found = {
      tenant: { ...t, verified: t.verified === 1 },
      scope: c ? { settings: parseJson(c.settings, {}), data_source_ids: parseJson<string[]>(c.ids, []), language: c.language } : null,
    };
    if (!c || t.plan !== plan) return { ...found, ok: false, used: (current.get(tenantId, period) as { queries: number } | undefined)?.queries ?? 0 };
    return { ...found, ...countQueries(tenantId, period, n, limit) };
  });
  return {
    async consumeQueries(tenantId, period, n, limit) {
      return countQueries(tenantId, period, n, limit);
    },
    async admitQueries(tenantId, collectionId, period, n, plan, limit) {
      return admit(tenantId, collectionId, period, n, plan, limit);
    },
  };
}
