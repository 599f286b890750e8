// Adaptation jobs of collections on PostgreSQL (see sqlite/adaptations.ts). `seq` breaks ties of
// equal timestamps in insertion order, as SQLite's rowid does.
import type { Pool } from "./db.js";
import { ADAPTATIONS_TABLE, type AdaptationStore, type CollectionAdaptationRow, type UnfinishedAdaptation } from "../adaptation-types.js";
import { pgJobRows } from "./job-rows.js";
import { parseJson } from "./rows.js";

type RawAdaptation = Omit<CollectionAdaptationRow, "result"> & { result: string | null };

const toAdaptation = (r: RawAdaptation): CollectionAdaptationRow => ({ ...r, result: r.result === null ? null : parseJson(r.result, null) });
const of = (r: RawAdaptation | undefined) => (r ? toAdaptation(r) : null);

export function pgAdaptations(pool: Pool): AdaptationStore {
  const rows = pgJobRows<RawAdaptation>(pool, ADAPTATIONS_TABLE);
  return {
    createAdaptation: (a) => rows.insert(a),
    getAdaptation: async (tenantId, id) => of(await rows.get(tenantId, id)),
    async listAdaptations(tenantId, collectionId, limit) {
      const sql = `SELECT ${rows.columns} FROM collection_adaptations WHERE tenant_id = $1 AND collection_id = $2 ORDER BY created_at DESC, seq DESC LIMIT $3`;
      return (await pool.query<RawAdaptation>(sql, [tenantId, collectionId, limit])).rows.map(toAdaptation);
    },
    transitionAdaptation: async (tenantId, id, from, to, patch = {}) => of(await rows.transition(tenantId, id, from, to, patch)),
    async setAdaptationProgress(tenantId, id, p) {
      const sql = "UPDATE collection_adaptations SET phase = $1, folds_done = $2 WHERE tenant_id = $3 AND id = $4 AND status = 'running'";
      return ((await pool.query(sql, [p.phase, p.folds_done, tenantId, id])).rowCount ?? 0) > 0;
    },
    async unfinishedAdaptations() {
      return (await pool.query<UnfinishedAdaptation>("SELECT id, tenant_id, trigger FROM collection_adaptations WHERE status IN ('queued', 'running', 'applying')")).rows;
    },
  };
}
