// Tuning jobs of benchmark suites on PostgreSQL (see sqlite/benchmark-tunings.ts). `seq` breaks
// ties of equal timestamps in insertion order, as SQLite's rowid does.
import type { Pool } from "./db.js";
import { TUNING_COLUMNS, tuningPatchEntries, tuningValues, type BenchmarkStore, type BenchmarkTuningRow } from "../benchmark-types.js";
import { parseJson } from "./rows.js";

type RawTuning = Omit<BenchmarkTuningRow, "result"> & { result: string | null };

const toTuning = (r: RawTuning): BenchmarkTuningRow => ({ ...r, result: r.result === null ? null : parseJson(r.result, null) });

type TuningMethods = Pick<BenchmarkStore, "createTuning" | "getTuning" | "listTunings" | "transitionTuning" | "setTuningProgress" | "unfinishedTunings">;

export function pgTunings(pool: Pool): TuningMethods {
  return {
    async createTuning(t) {
      await pool.query(`INSERT INTO benchmark_tunings (${TUNING_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, tuningValues(t, (b) => b));
    },
    async getTuning(tenantId, id) {
      const r = await pool.query<RawTuning>(`SELECT ${TUNING_COLUMNS} FROM benchmark_tunings WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return r.rows[0] ? toTuning(r.rows[0]) : null;
    },
    async listTunings(tenantId, suiteId, limit) {
      const r = await pool.query<RawTuning>(
        `SELECT ${TUNING_COLUMNS} FROM benchmark_tunings WHERE tenant_id = $1 AND suite_id = $2 ORDER BY created_at DESC, seq DESC LIMIT $3`,
        [tenantId, suiteId, limit],
      );
      return r.rows.map(toTuning);
    },
    async transitionTuning(tenantId, id, from, to, patch = {}) {
      const entries = tuningPatchEntries(patch);
      const sets = ["status = $1", ...entries.map(([c], i) => `${c} = $${i + 2}`)];
      const params: unknown[] = [to, ...entries.map(([, v]) => v), tenantId, id, [...from]];
      const n = params.length;
      const r = await pool.query<RawTuning>(
        `UPDATE benchmark_tunings SET ${sets.join(", ")} WHERE tenant_id = $${n - 2} AND id = $${n - 1} AND status = ANY($${n}::text[]) RETURNING ${TUNING_COLUMNS}`,
        params,
      );
      return r.rows[0] ? toTuning(r.rows[0]) : null;
    },
    async setTuningProgress(tenantId, id, p) {
      const r = await pool.query("UPDATE benchmark_tunings SET phase = $1, cases_done = $2 WHERE tenant_id = $3 AND id = $4 AND status = 'running'", [
        p.phase,
        p.cases_done,
        tenantId,
        id,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
    async unfinishedTunings() {
      return (await pool.query<{ id: string; tenant_id: string }>("SELECT id, tenant_id FROM benchmark_tunings WHERE status IN ('queued', 'running')")).rows;
    },
  };
}
