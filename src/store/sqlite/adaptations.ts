// Adaptation jobs of collections in SQLite (see adaptation-types.ts). The answer (result) is JSON
// text, apply an INTEGER 0/1.
import type { DB } from "./db.js";
import { ADAPTATIONS_TABLE, type AdaptationStore, type CollectionAdaptationRow, type UnfinishedAdaptation } from "../adaptation-types.js";
import { parseJson } from "./content/json.js";
import { sqliteJobRows } from "./job-rows.js";

type RawAdaptation = Omit<CollectionAdaptationRow, "apply" | "result"> & { apply: number; result: string | null };

const toAdaptation = (r: RawAdaptation): CollectionAdaptationRow => ({ ...r, apply: r.apply === 1, result: r.result === null ? null : parseJson(r.result, null) });

export function sqliteAdaptations(db: DB): AdaptationStore {
  const rows = sqliteJobRows<RawAdaptation>(db, ADAPTATIONS_TABLE);
  const list = db.prepare(`SELECT ${rows.columns} FROM collection_adaptations WHERE tenant_id = ? AND collection_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`);
  const progress = db.prepare("UPDATE collection_adaptations SET phase = ?, folds_done = ? WHERE tenant_id = ? AND id = ? AND status = 'running'");
  const of = (r: RawAdaptation | undefined) => (r ? toAdaptation(r) : null);
  return {
    createAdaptation: async (a) => rows.insert(a),
    getAdaptation: async (tenantId, id) => of(rows.get(tenantId, id)),
    // rowid breaks ties between adaptations created in the same millisecond (insertion order)
    listAdaptations: async (tenantId, collectionId, limit) => (list.all(tenantId, collectionId, limit) as RawAdaptation[]).map(toAdaptation),
    transitionAdaptation: async (tenantId, id, from, to, patch = {}) => of(rows.transition(tenantId, id, from, to, patch)),
    setAdaptationProgress: async (tenantId, id, p) => progress.run(p.phase, p.folds_done, tenantId, id).changes > 0,
    unfinishedAdaptations: async () =>
      db.prepare("SELECT id, tenant_id, trigger FROM collection_adaptations WHERE status IN ('queued', 'running', 'applying')").all() as UnfinishedAdaptation[],
  };
}
