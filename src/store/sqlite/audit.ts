import type { DB } from "./db.js";
import type { AuditRow, AuditStore } from "../audit-types.js";

type Raw = Omit<AuditRow, "detail"> & { detail: string };

export function sqliteAudit(db: DB): AuditStore {
  const insert = db.prepare(
    `INSERT INTO audit_log (tenant_id, id, at, actor_type, actor_id, action, target_type, target_id, detail, address)
     VALUES (@tenant_id, @id, @at, @actor_type, @actor_id, @action, @target_type, @target_id, @detail, @address)`,
  );
  const toRow = (r: Raw): AuditRow => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> });
  return {
    async record(row) {
      insert.run({ ...row, detail: JSON.stringify(row.detail) });
    },
    async list(tenantId, { limit, before }) {
      const rows = before
        ? db
            .prepare(
              `SELECT * FROM audit_log WHERE tenant_id = ? AND (at < ? OR (at = ? AND id < ?)) ORDER BY at DESC, id DESC LIMIT ?`,
            )
            .all(tenantId, before.at, before.at, before.id, limit)
        : db.prepare("SELECT * FROM audit_log WHERE tenant_id = ? ORDER BY at DESC, id DESC LIMIT ?").all(tenantId, limit);
      return (rows as Raw[]).map(toRow);
    },
    async prune(before) {
      return db.prepare("DELETE FROM audit_log WHERE at < ?").run(before).changes;
    },
  };
}
