import type { Pool } from "./db.js";
import type { QueryAdmission, QuotaStore } from "../account-types.js";
import type { TenantRow } from "../types.js";
import { parseJson, toTenant } from "./rows.js";
import { retryStaleShard } from "./stale-shard-retry.js";

// Check and increment are one statement: the upsert's row lock serialises concurrent requests of
// every API process, so none slips past the limit and none is counted twice. DO UPDATE ... WHERE
// guards every increment; a request larger than the limit never reaches the statement. A plain
// VALUES upsert, no NULL parameter: Citus routes it to the tenant's shard as it is.
const CONSUME = `
  INSERT INTO usage_counters (tenant_id, period, queries) VALUES ($1, $2, $3::bigint)
  ON CONFLICT (tenant_id, period) DO UPDATE SET queries = usage_counters.queries + excluded.queries
    WHERE usage_counters.queries + excluded.queries <= $4::bigint
  RETURNING queries`;

// A search's tenant, collection scope and quota in one round trip (docs/decisions.md "One
// statement to admit a search"). The count is only added when the tenant and the collection exist
// and the tenant is on the plan whose limit was passed ($5, $6): the limit stays a parameter, as
// Citus requires of an ON CONFLICT ... WHERE on a distributed table. `counted` reads the counter as
// the statement found it (a refusal reads it again). On Citus the CTEs run as subplans, each one task
// on the tenant's shard group or the reference table `tenants` (test/citus/routing.test.ts).
const ADMIT = `
  WITH t AS (SELECT id, name, slug, plan, verified, created_at FROM tenants WHERE id = $1),
  c AS (
    SELECT c.settings, c.language,
      ARRAY(SELECT cs.data_source_id FROM collection_sources cs WHERE cs.tenant_id = $1 AND cs.collection_id = c.id) AS ids
    FROM collections c WHERE c.tenant_id = $1 AND c.id = $2),
  u AS (
    INSERT INTO usage_counters (tenant_id, period, queries)
    SELECT $1, $3, $4::bigint FROM t, c WHERE t.plan = $5 AND $4::bigint <= $6::bigint
    ON CONFLICT (tenant_id, period) DO UPDATE SET queries = usage_counters.queries + excluded.queries
      WHERE usage_counters.queries + excluded.queries <= $6::bigint
    RETURNING queries)
  SELECT t.id, t.name, t.slug, t.plan, t.verified, t.created_at, c.settings, c.language, c.ids,
    (SELECT queries FROM u) AS used, (SELECT queries FROM usage_counters WHERE tenant_id = $1 AND period = $3) AS counted
  FROM t LEFT JOIN c ON true`;

type AdmitRow = TenantRow & { settings: string | null; language: string | null; ids: string[] | null; used: number | null; counted: number | null };

function admission(row: AdmitRow | undefined): QueryAdmission {
  if (!row) return { tenant: null, scope: null, ok: false, used: 0 };
  const scope = row.ids === null ? null : { settings: parseJson(row.settings ?? "{}", {}), data_source_ids: row.ids, language: row.language };
  return { tenant: toTenant(row), scope, ok: row.used !== null, used: row.used ?? row.counted ?? 0 };
}

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
    async admitQueries(tenantId, collectionId, period, n, plan, limit) {
      const r = await retryStaleShard(() => pool.query<AdmitRow>(ADMIT, [tenantId, collectionId, period, n, plan, limit ?? Number.MAX_SAFE_INTEGER]));
      const a = admission(r.rows[0]);
      if (a.ok || !a.tenant || !a.scope || a.tenant.plan !== plan) return a;
      // refused at the limit: the statement's own read of the counter predates the increments it
      // waited for, so the refusal's count is read again (a second statement only when refused)
      const c = await pool.query<{ queries: number }>("SELECT queries FROM usage_counters WHERE tenant_id = $1 AND period = $2", [tenantId, period]);
      return { ...a, used: c.rows[0]?.queries ?? 0 };
    },
  };
}
