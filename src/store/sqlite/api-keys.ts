import type { DB } from "./db.js";
import type { ApiKeyRow, ApiKeyStore, Scope, TenantRow } from "../types.js";

interface Raw extends Omit<ApiKeyRow, "scopes"> {
  scopes: string;
}

const toRow = (r: Raw): ApiKeyRow => ({ ...r, scopes: JSON.parse(r.scopes) as Scope[] });

export function insertKey(db: DB, k: ApiKeyRow): void {
  db.prepare(
    `INSERT INTO api_keys (id, tenant_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at, last_used_at)
     VALUES (@id, @tenant_id, @name, @prefix, @hash, @scopes, @created_at, @expires_at, @revoked_at, @last_used_at)`,
  ).run({ ...k, scopes: JSON.stringify(k.scopes) });
}

export function sqliteApiKeys(db: DB): ApiKeyStore {
  const byHash = db.prepare("SELECT * FROM api_keys WHERE hash = ?");
  const touch = db.prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
  const tenantOf = db.prepare("SELECT id, name, slug, plan, verified, created_at FROM tenants WHERE id = ?");
  return {
    async create(k) {
      insertKey(db, k);
    },
    async list(tenantId) {
      return (db.prepare("SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at DESC, id").all(tenantId) as Raw[]).map(toRow);
    },
    async get(tenantId, id) {
      const r = db.prepare("SELECT * FROM api_keys WHERE tenant_id = ? AND id = ?").get(tenantId, id) as Raw | undefined;
      return r ? toRow(r) : null;
    },
    async findByHash(hash) {
      const r = byHash.get(hash) as Raw | undefined;
      return r ? toRow(r) : null;
    },
    async findByHashWithTenant(hash) {
      const r = byHash.get(hash) as Raw | undefined;
      if (!r) return null;
      const t = tenantOf.get(r.tenant_id) as (Omit<TenantRow, "verified"> & { verified: number }) | undefined;
      return { key: toRow(r), tenant: t ? { ...t, verified: t.verified === 1 } : null };
    },
    async revoke(tenantId, id, at) {
      const res = db
        .prepare("UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL")
        .run(at, tenantId, id);
      return res.changes > 0;
    },
    async touch(id, at) {
      touch.run(at, id);
    },
  };
}
