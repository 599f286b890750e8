import type { Pool, Queryable } from "./db.js";
import type { ApiKeyRow, ApiKeyStore, Scope, TenantRow } from "../types.js";

type Raw = Omit<ApiKeyRow, "scopes"> & { scopes: string };

const COLS = "id, tenant_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at, last_used_at";
const toRow = (r: Raw): ApiKeyRow => ({ ...r, scopes: JSON.parse(r.scopes) as Scope[] });

export async function insertKey(q: Queryable, k: ApiKeyRow): Promise<void> {
  await q.query(`INSERT INTO api_keys (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
    k.id,
    k.tenant_id,
    k.name,
    k.prefix,
    k.hash,
    JSON.stringify(k.scopes),
    k.created_at,
    k.expires_at,
    k.revoked_at,
    k.last_used_at,
  ]);
}

export function pgApiKeys(pool: Pool): ApiKeyStore {
  return {
    async create(k) {
      await insertKey(pool, k);
    },
    async list(tenantId) {
      const r = await pool.query<Raw>(`SELECT ${COLS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at DESC, id`, [tenantId]);
      return r.rows.map(toRow);
    },
    async get(tenantId, id) {
      const r = await pool.query<Raw>(`SELECT ${COLS} FROM api_keys WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return r.rows[0] ? toRow(r.rows[0]) : null;
    },
    async findByHash(hash) {
      const r = await pool.query<Raw>(`SELECT ${COLS} FROM api_keys WHERE hash = $1`, [hash]);
      return r.rows[0] ? toRow(r.rows[0]) : null;
    },
    async findByHashWithTenant(hash) {
      const r = await pool.query<Raw & { tenant: TenantRow | null }>(
        `SELECT ${COLS.split(", ").map((c) => `k.${c}`).join(", ")},
           (SELECT json_build_object('id', t.id, 'name', t.name, 'slug', t.slug, 'plan', t.plan, 'verified', t.verified, 'created_at', t.created_at)
            FROM tenants t WHERE t.id = k.tenant_id) AS tenant
         FROM api_keys k WHERE k.hash = $1`,
        [hash],
      );
      const row = r.rows[0];
      if (!row) return null;
      const { tenant, ...key } = row;
      return { key: toRow(key), tenant };
    },
    async revoke(tenantId, id, at) {
      const r = await pool.query("UPDATE api_keys SET revoked_at = $1 WHERE tenant_id = $2 AND id = $3 AND revoked_at IS NULL", [at, tenantId, id]);
      return (r.rowCount ?? 0) > 0;
    },
    async touch(id, at) {
      await pool.query("UPDATE api_keys SET last_used_at = $1 WHERE id = $2", [at, id]);
    },
  };
}
