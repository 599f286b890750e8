import type { DB } from "../db.js";
import type { CollectionLanguage, CollectionPatch, CollectionRow, CollectionView } from "../../content-types.js";
import type { CollectionCatalog } from "../../content-store.js";
import { parseJson } from "./json.js";

type Raw = Omit<CollectionView, "settings" | "data_source_ids"> & { settings: string; data_source_ids: string };

const VIEW = `
  SELECT c.*,
    (SELECT json_group_array(cs.data_source_id) FROM collection_sources cs WHERE cs.collection_id = c.id) AS data_source_ids,
    (SELECT count(*) FROM collection_sources cs WHERE cs.collection_id = c.id) AS data_source_count,
    (SELECT count(*) FROM documents d JOIN collection_sources cs ON cs.data_source_id = d.data_source_id
      WHERE cs.collection_id = c.id) AS document_count,
    (SELECT count(*) FROM documents d JOIN collection_sources cs ON cs.data_source_id = d.data_source_id
      WHERE cs.collection_id = c.id AND d.status = 'indexed') AS indexed_count
  FROM collections c`;

const toView = (r: Raw): CollectionView => ({
  ...r,
  settings: parseJson(r.settings, {}),
  data_source_ids: parseJson<string[]>(r.data_source_ids, []).sort(),
});

function sourceLanguages(db: DB, tenantId: string, sourceIds: string[]): CollectionLanguage[] {
  if (sourceIds.length === 0) return [];
  return db
    .prepare(
      `SELECT cs.collection_id, cs.data_source_id, c.language FROM collection_sources cs JOIN collections c ON c.id = cs.collection_id
       WHERE cs.tenant_id = ? AND cs.data_source_id IN (SELECT value FROM json_each(?)) ORDER BY cs.collection_id, cs.data_source_id`,
    )
    .all(tenantId, JSON.stringify(sourceIds)) as CollectionLanguage[];
}

export function collectionMethods(db: DB): CollectionCatalog {
  const link = db.prepare(
    "INSERT OR IGNORE INTO collection_sources (tenant_id, collection_id, data_source_id) VALUES (?, ?, ?)",
  );
  const setSources = (tenantId: string, collectionId: string, ids: string[]) => {
    db.prepare("DELETE FROM collection_sources WHERE tenant_id = ? AND collection_id = ?").run(tenantId, collectionId);
    for (const id of ids) link.run(tenantId, collectionId, id);
  };
  const create = db.transaction((row: CollectionRow, ids: string[]) => {
    db.prepare(
      "INSERT INTO collections (id, tenant_id, name, description, settings, created_at, language) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(row.id, row.tenant_id, row.name, row.description, JSON.stringify(row.settings), row.created_at, row.language ?? null);
    setSources(row.tenant_id, row.id, ids);
  });
  const update = db.transaction((tenantId: string, id: string, p: CollectionPatch) => {
    const exists = db.prepare("SELECT 1 FROM collections WHERE tenant_id = ? AND id = ?").get(tenantId, id);
    if (!exists) return false;
    if (p.name !== undefined) db.prepare("UPDATE collections SET name = ? WHERE id = ?").run(p.name, id);
    if (p.description !== undefined) db.prepare("UPDATE collections SET description = ? WHERE id = ?").run(p.description, id);
    if (p.settings !== undefined) db.prepare("UPDATE collections SET settings = ? WHERE id = ?").run(JSON.stringify(p.settings), id);
    if (p.language !== undefined) db.prepare("UPDATE collections SET language = ? WHERE id = ?").run(p.language, id);
    if (p.data_source_ids !== undefined) setSources(tenantId, id, p.data_source_ids);
    return true;
  });
  const existing = (table: string) => async (tenantId: string, ids: string[]) => {
    if (ids.length === 0) return [];
    const rows = db
      .prepare(`SELECT id FROM ${table} WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))`)
      .all(tenantId, JSON.stringify(ids)) as { id: string }[];
    return rows.map((r) => r.id);
  };
  return {
    async createCollection(row, ids) {
      create.immediate(row, ids);
    },
    async listCollections(tenantId) {
      return (db.prepare(`${VIEW} WHERE c.tenant_id = ? ORDER BY c.created_at DESC, c.id`).all(tenantId) as Raw[]).map(toView);
    },
    async getCollection(tenantId, id) {
      const r = db.prepare(`${VIEW} WHERE c.tenant_id = ? AND c.id = ?`).get(tenantId, id) as Raw | undefined;
      return r ? toView(r) : null;
    },
    async collectionScope(tenantId, id) {
      const r = db
        .prepare(
          `SELECT c.settings, c.language,
             (SELECT json_group_array(cs.data_source_id) FROM collection_sources cs WHERE cs.collection_id = c.id) AS ids
           FROM collections c WHERE c.tenant_id = ? AND c.id = ?`,
        )
        .get(tenantId, id) as { settings: string; ids: string; language: string | null } | undefined;
      return r ? { settings: parseJson(r.settings, {}), data_source_ids: parseJson<string[]>(r.ids, []), language: r.language } : null;
    },
    sourceLanguages: async (tenantId, sourceIds) => sourceLanguages(db, tenantId, sourceIds),
    async updateCollection(tenantId, id, patch) {
      return update.immediate(tenantId, id, patch);
    },
    async deleteCollection(tenantId, id) {
      return db.prepare("DELETE FROM collections WHERE tenant_id = ? AND id = ?").run(tenantId, id).changes > 0;
    },
    async attachSource(tenantId, collectionId, sourceId) {
      link.run(tenantId, collectionId, sourceId);
    },
    async detachSource(tenantId, collectionId, sourceId) {
      return (
        db
          .prepare("DELETE FROM collection_sources WHERE tenant_id = ? AND collection_id = ? AND data_source_id = ?")
          .run(tenantId, collectionId, sourceId).changes > 0
      );
    },
    existingSourceIds: existing("data_sources"),
    existingCollectionIds: existing("collections"),
  };
}
