// Adaptation jobs of collections in SQLite (see adaptation-types.ts). The answer (result) is JSON
// text, apply an INTEGER 0/1.
import type { DB } from "./db.js";
import { ADAPTATIONS_TABLE, type AdaptationStore, type CollectionAdaptationRow, type UnfinishedAdaptation } from "../adaptation-types.js";
import { columnList, jobRowValues } from "../job-rows.js";
import { parseJson } from "./content/json.js";
import { sqliteTransition } from "./job-rows.js";

type RawAdaptation = Omit<CollectionAdaptationRow, "apply" | "result"> & { apply: number; result: string | null };

const toAdaptation = (r: RawAdaptation): CollectionAdaptationRow => ({ ...r, apply: r.apply === 1, result: r.result === null ? null : parseJson(r.result, null) });

export function sqliteAdaptations(db: DB): AdaptationStore {
  const columns = columnList(ADAPTATIONS_TABLE);
  const get = db.prepare(`SELECT ${columns} FROM collection_adaptations WHERE tenant_id = ? AND id = ?`);
  const insert = db.prepare(`INSERT INTO collection_adaptations (${columns}) VALUES (${ADAPTATIONS_TABLE.columns.map(() => "?").join(", ")})`);
  const list = db.prepare(`SELECT ${columns} FROM collection_adaptations WHERE tenant_id = ? AND collection_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`);
  const progress = db.prepare("UPDATE collection_adaptations SET phase = ?, folds_done = ? WHERE tenant_id = ? AND id = ? AND status = 'running'");
  const transition = sqliteTransition<RawAdaptation>(db, ADAPTATIONS_TABLE);
  return {
    async createAdaptation(a) {
      insert.run(...jobRowValues(ADAPTATIONS_TABLE, a, (b) => (b ? 1 : 0)));
    },
    async getAdaptation(tenantId, id) {
      const r = get.get(tenantId, id) as RawAdaptation | undefined;
      return r ? toAdaptation(r) : null;
    },
    async listAdaptations(tenantId, collectionId, limit) {
      // rowid breaks ties between adaptations created in the same millisecond (insertion order)
      return (list.all(tenantId, collectionId, limit) as RawAdaptation[]).map(toAdaptation);
    },
    async transitionAdaptation(tenantId, id, from, to, patch = {}) {
      const r = transition(tenantId, id, from, to, patch);
      return r ? toAdaptation(r) : null;
    },
    async setAdaptationProgress(tenantId, id, p) {
      return progress.run(p.phase, p.folds_done, tenantId, id).changes > 0;
    },
    async unfinishedAdaptations() {
      return db.prepare("SELECT id, tenant_id, trigger FROM collection_adaptations WHERE status IN ('queued', 'running', 'applying')").all() as UnfinishedAdaptation[];
    },
  };
}
