import { isUniqueViolation, transaction, type Pool } from "./db.js";
import { UniqueViolation, type TenantRow, type TenantStore } from "../types.js";
import { insertKey } from "./api-keys.js";
import { TENANT_COLS } from "./rows.js";

export function pgTenants(pool: Pool): TenantStore {
  return {
    async createWithKey(t, k) {
      try {
        await transaction(pool, async (c) => {
          await c.query(`INSERT INTO tenants (${TENANT_COLS}) VALUES ($1, $2, $3, $4, $5, $6)`, [t.id, t.name, t.slug, t.plan, t.verified, t.created_at]);
          await insertKey(c, k);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new UniqueViolation("slug");
        throw err;
      }
    },
    async list() {
      return (await pool.query<TenantRow>(`SELECT ${TENANT_COLS} FROM tenants ORDER BY created_at, id`)).rows;
    },
    async get(id) {
      return (await pool.query<TenantRow>(`SELECT ${TENANT_COLS} FROM tenants WHERE id = $1`, [id])).rows[0] ?? null;
    },
    async slugExists(slug) {
      return ((await pool.query("SELECT 1 FROM tenants WHERE slug = $1", [slug])).rowCount ?? 0) > 0;
    },
    async setPlan(id, plan) {
      await pool.query("UPDATE tenants SET plan = $1 WHERE id = $2", [plan, id]);
    },
  };
}
