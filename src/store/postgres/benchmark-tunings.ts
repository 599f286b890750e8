// Tuning jobs of benchmark suites on PostgreSQL (see sqlite/benchmark-tunings.ts). `seq` breaks
// ties of equal timestamps in insertion order, as SQLite's rowid does.
import type { Pool } from "./db.js";
import { TUNINGS_TABLE, type BenchmarkStore, type BenchmarkTuningRow } from "../benchmark-types.js";
import { pgJobRows } from "./job-rows.js";
import { parseJson } from "./rows.js";

type RawTuning = Omit<BenchmarkTuningRow, "result"> & { result: string | null };

const toTuning = (r: RawTuning): BenchmarkTuningRow => ({ ...r, result: r.result === null ? null : parseJson(r.result, null) });

type TuningMethods = Pick<BenchmarkStore, "createTuning" | "getTuning" | "listTunings" | "transitionTuning" | "setTuningProgress" | "unfinishedTunings">;

export function pgTunings(pool: Pool): TuningMethods {
  const rows = pgJobRows<RawTuning>(pool, TUNINGS_TABLE);
  const { columns } = rows;
  return {
    async createTuning(t) {
      await rows.insert(t);
    },
    async getTuning(tenantId, id) {
      const r = await rows.get(tenantId, id);
      return r ? toTuning(r) : null;
    },
    async listTunings(tenantId, suiteId, limit) {
      const r = await pool.query<RawTuning>(
        `SELECT ${columns} FROM benchmark_tunings WHERE tenant_id = $1 AND suite_id = $2 ORDER BY created_at DESC, seq DESC LIMIT $3`,
        [tenantId, suiteId, limit],
      );
      return r.rows.map(toTuning);
    },
    async transitionTuning(tenantId, id, from, to, patch = {}) {
      const r = await rows.transition(tenantId, id, from, to, patch);
      return r ? toTuning(r) : null;
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
