// Tuning jobs of benchmark suites in SQLite (see benchmark-types.ts). The answer (result) is JSON
// text, apply an INTEGER 0/1.
import type { DB } from "./db.js";
import { TUNINGS_TABLE, type BenchmarkStore, type BenchmarkTuningRow } from "../benchmark-types.js";
import { parseJson } from "./content/json.js";
import { sqliteJobRows } from "./job-rows.js";

type RawTuning = Omit<BenchmarkTuningRow, "apply" | "result"> & { apply: number; result: string | null };

const toTuning = (r: RawTuning): BenchmarkTuningRow => ({ ...r, apply: r.apply === 1, result: r.result === null ? null : parseJson(r.result, null) });

type TuningMethods = Pick<BenchmarkStore, "createTuning" | "getTuning" | "listTunings" | "transitionTuning" | "setTuningProgress" | "unfinishedTunings">;

export function sqliteTunings(db: DB): TuningMethods {
  const rows = sqliteJobRows<RawTuning>(db, TUNINGS_TABLE);
  const { columns } = rows;
  return {
    async createTuning(t) {
      rows.insert(t);
    },
    async getTuning(tenantId, id) {
      const r = rows.get(tenantId, id);
      return r ? toTuning(r) : null;
    },
    async listTunings(tenantId, suiteId, limit) {
      // rowid breaks ties between tunings created in the same millisecond (insertion order)
      const rows = db
        .prepare(`SELECT ${columns} FROM benchmark_tunings WHERE tenant_id = ? AND suite_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
        .all(tenantId, suiteId, limit) as RawTuning[];
      return rows.map(toTuning);
    },
    async transitionTuning(tenantId, id, from, to, patch = {}) {
      const r = rows.transition(tenantId, id, from, to, patch);
      return r ? toTuning(r) : null;
    },
    async setTuningProgress(tenantId, id, p) {
      return (
        db.prepare("UPDATE benchmark_tunings SET phase = ?, cases_done = ? WHERE tenant_id = ? AND id = ? AND status = 'running'").run(p.phase, p.cases_done, tenantId, id).changes > 0
      );
    },
    async unfinishedTunings() {
      return db.prepare("SELECT id, tenant_id FROM benchmark_tunings WHERE status IN ('queued', 'running')").all() as { id: string; tenant_id: string }[];
    },
  };
}
