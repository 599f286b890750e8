// Data source schedules on PostgreSQL (see sqlite/schedules.ts and schedule-types.ts).
import type { Pool } from "./db.js";
import type { ScheduleStore, SourceScheduleRow } from "../schedule-types.js";

export function pgSchedules(pool: Pool): ScheduleStore {
  return {
    async put(r) {
      await pool.query(
        `INSERT INTO source_schedules (data_source_id, tenant_id, schedule, next_run_at, last_run_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, data_source_id) DO UPDATE SET schedule = excluded.schedule, next_run_at = excluded.next_run_at, updated_at = excluded.updated_at`,
        [r.data_source_id, r.tenant_id, r.schedule, r.next_run_at, r.last_run_at, r.created_at, r.updated_at],
      );
    },
    async get(tenantId, sourceId) {
      const r = await pool.query<SourceScheduleRow>("SELECT * FROM source_schedules WHERE tenant_id = $1 AND data_source_id = $2", [tenantId, sourceId]);
      return r.rows[0] ?? null;
    },
    async remove(tenantId, sourceId) {
      const r = await pool.query("DELETE FROM source_schedules WHERE tenant_id = $1 AND data_source_id = $2", [tenantId, sourceId]);
      return (r.rowCount ?? 0) > 0;
    },
    async due(now, limit) {
      const r = await pool.query<SourceScheduleRow>("SELECT * FROM source_schedules WHERE next_run_at <= $1 ORDER BY next_run_at LIMIT $2", [now, limit]);
      return r.rows;
    },
    async claim(sourceId, expected, next, ranAt) {
      const r = await pool.query(
        "UPDATE source_schedules SET next_run_at = $1, last_run_at = $2, updated_at = $2 WHERE data_source_id = $3 AND next_run_at = $4",
        [next, ranAt, sourceId, expected],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
