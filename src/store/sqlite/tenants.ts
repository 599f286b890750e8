import type { DB } from "./db.js";
import { isUniqueViolation } from "./db.js";
import { UniqueViolation, type ApiKeyRow, type TenantRow, type TenantStore } from "../types.js";
import { insertKey } from "./api-keys.js";

interface Raw extends Omit<TenantRow, "verified"> {
  verified: number;
}

const toRow = (r: Raw): TenantRow => ({ ...r, verified: r.verified === 1 });

export function sqliteTenants(db: DB): TenantStore {
  const insert = db.prepare(
    "INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES (@id, @name, @slug, @plan, @verified, @created_at)",
  );
  const createWithKey = db.transaction((t: TenantRow, k: ApiKeyRow) => {
    insert.run({ ...t, verified: t.verified ? 1 : 0 });
    insertKey(db, k);
  });
  return {
    async createWithKey(t, k) {
      try {
        createWithKey(t, k);
      } catch (err) {
        if (isUniqueViolation(err)) throw new UniqueViolation("slug");
        throw err;
      }
    },
    async list() {
      return (db.prepare("SELECT * FROM tenants ORDER BY created_at, id").all() as Raw[]).map(toRow);
    },
    async get(id) {
      const r = db.prepare("SELECT * FROM tenants WHERE id = ?").get(id) as Raw | undefined;
      return r ? toRow(r) : null;
    },
    async slugExists(slug) {
      return db.prepare("SELECT 1 FROM tenants WHERE slug = ?").get(slug) !== undefined;
    },
    async setPlan(id, plan) {
      db.prepare("UPDATE tenants SET plan = ? WHERE id = ?").run(plan, id);
    },
  };
}
