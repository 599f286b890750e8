// Data source schedules in SQLite (see schedule-types.ts).
import type { DB } from "./db.js";
import type { ScheduleStore, SourceScheduleRow } from "../schedule-types.js";

export function sqliteSchedules(db: DB): ScheduleStore {
  return {
    async put(r) {
      db.prepare(
        `INSERT INTO source_schedules (data_source_id, tenant_id, schedule, next_run_at, last_run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (data_source_id) DO UPDATE SET schedule = excluded.schedule, next_run_at = excluded.next_run_at, updated_at = excluded.updated_at`,
      ).run(r.data_source_id, r.tenant_id, r.schedule, r.next_run_at, r.last_run_at, r.created_at, r.updated_at);
    },
    async get(tenantId, sourceId) {
      return (db.prepare("SELECT * FROM source_schedules WHERE tenant_id = ? AND data_source_id = ?").get(tenantId, sourceId) as SourceScheduleRow | undefined) ?? null;
    },
    async remove(tenantId, sourceId) {
      return db.prepare("DELETE FROM source_schedules WHERE tenant_id = ? AND data_source_id = ?").run(tenantId, sourceId).changes > 0;
    },
    async due(now, limit) {
      return db.prepare("SELECT * FROM source_schedules WHERE next_run_at <= ? ORDER BY next_run_at LIMIT ?").all(now, limit) as SourceScheduleRow[];
    },
    async claim(sourceId, expected, next, ranAt) {
      const r = db
        .prepare("UPDATE source_schedules SET next_run_at = ?, last_run_at = ?, updated_at = ? WHERE data_source_id = ? AND next_run_at = ?")
        .run(next, ranAt, ranAt, sourceId, expected);
      return r.changes > 0;
    },
  };
}
