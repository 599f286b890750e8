import type { Pool } from "./db.js";
import type { AuditRow, AuditStore } from "../audit-types.js";
import { parseJson } from "./rows.js";

type Raw = Omit<AuditRow, "detail"> & { detail: string };

const COLS = "tenant_id, id, at, actor_type, actor_id, action, target_type, target_id, detail, address";
const toRow = (r: Raw): AuditRow => ({ ...r, detail: parseJson<Record<string, unknown>>(r.detail, {}) });

export function pgAudit(pool: Pool): AuditStore {
  return {
    async record(a) {
      await pool.query(`INSERT INTO audit_log (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        a.tenant_id,
        a.id,
        a.at,
        a.actor_type,
        a.actor_id,
        a.action,
        a.target_type,
        a.target_id,
        JSON.stringify(a.detail),
        a.address,
      ]);
    },
    async list(tenantId, { limit, before }) {
      const r = before
        ? await pool.query<Raw>(
            `SELECT ${COLS} FROM audit_log WHERE tenant_id = $1 AND (at, id) < ($2, $3) ORDER BY at DESC, id DESC LIMIT $4`,
            [tenantId, before.at, before.id, limit],
          )
        : await pool.query<Raw>(`SELECT ${COLS} FROM audit_log WHERE tenant_id = $1 ORDER BY at DESC, id DESC LIMIT $2`, [tenantId, limit]);
      return r.rows.map(toRow);
    },
    async prune(before) {
      return (await pool.query("DELETE FROM audit_log WHERE at < $1", [before])).rowCount ?? 0;
    },
  };
}
