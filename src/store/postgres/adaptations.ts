// Adaptation jobs of collections on PostgreSQL (see sqlite/adaptations.ts). `seq` breaks ties of
// equal timestamps in insertion order, as SQLite's rowid does.
import type { Pool } from "./db.js";
import { ADAPTATIONS_TABLE, type AdaptationStore, type CollectionAdaptationRow, type UnfinishedAdaptation } from "../adaptation-types.js";
import { columnList, jobRowValues } from "../job-rows.js";
import { pgTransition } from "./job-rows.js";
import { parseJson } from "./rows.js";

type RawAdaptation = Omit<CollectionAdaptationRow, "result"> & { result: string | null };

const toAdaptation = (r: RawAdaptation): CollectionAdaptationRow => ({ ...r, result: r.result === null ? null : parseJson(r.result, null) });

export function pgAdaptations(pool: Pool): AdaptationStore {
  const select = `SELECT ${columnList(ADAPTATIONS_TABLE)} FROM collection_adaptations`;
  const transition = pgTransition<RawAdaptation>(pool, ADAPTATIONS_TABLE);
  return {
    async createAdaptation(a) {
      const values = jobRowValues(ADAPTATIONS_TABLE, a, (b) => b);
      await pool.query(`INSERT INTO collection_adaptations (${columnList(ADAPTATIONS_TABLE)}) VALUES (${values.map((_, i) => `$${i + 1}`).join(", ")})`, values);
    },
    async getAdaptation(tenantId, id) {
      const r = await pool.query<RawAdaptation>(`${select} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return r.rows[0] ? toAdaptation(r.rows[0]) : null;
    },
    async listAdaptations(tenantId, collectionId, limit) {
      const r = await pool.query<RawAdaptation>(`${select} WHERE tenant_id = $1 AND collection_id = $2 ORDER BY created_at DESC, seq DESC LIMIT $3`, [tenantId, collectionId, limit]);
      return r.rows.map(toAdaptation);
    },
    async transitionAdaptation(tenantId, id, from, to, patch = {}) {
      const r = await transition(tenantId, id, from, to, patch);
      return r ? toAdaptation(r) : null;
    },
    async setAdaptationProgress(tenantId, id, p) {
      const sql = "UPDATE collection_adaptations SET phase = $1, folds_done = $2 WHERE tenant_id = $3 AND id = $4 AND status = 'running'";
      return ((await pool.query(sql, [p.phase, p.folds_done, tenantId, id])).rowCount ?? 0) > 0;
    },
    async unfinishedAdaptations() {
      return (await pool.query<UnfinishedAdaptation>("SELECT id, tenant_id, trigger FROM collection_adaptations WHERE status IN ('queued', 'running', 'applying')")).rows;
    },
  };
}
