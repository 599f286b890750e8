import { transaction, type Pool, type Queryable } from "../db.js";
import type { CollectionLanguage, CollectionRow, CollectionView } from "../../content-types.js";
import type { CollectionCatalog } from "../../content-store.js";
import { parseJson } from "./rows.js";

type Raw = Omit<CollectionView, "settings"> & { settings: string };

// Every subquery names the tenant as $1 (every caller's first parameter), not through the outer
// row: Citus routes a statement to one shard only when each table in it is pinned to the tenant.
const VIEW = `
  SELECT c.tenant_id, c.id, c.name, c.description, c.settings, c.created_at, c.language,
    ARRAY(SELECT cs.data_source_id FROM collection_sources cs
          WHERE cs.tenant_id = $1 AND cs.collection_id = c.id ORDER BY cs.data_source_id) AS data_source_ids,
    (SELECT count(*) FROM collection_sources cs WHERE cs.tenant_id = $1 AND cs.collection_id = c.id)::int AS data_source_count,
    (SELECT count(*) FROM documents d JOIN collection_sources cs ON cs.tenant_id = d.tenant_id AND cs.data_source_id = d.data_source_id
      WHERE cs.tenant_id = $1 AND cs.collection_id = c.id)::int AS document_count,
    (SELECT count(*) FROM documents d JOIN collection_sources cs ON cs.tenant_id = d.tenant_id AND cs.data_source_id = d.data_source_id
      WHERE cs.tenant_id = $1 AND cs.collection_id = c.id AND d.status = 'indexed')::int AS indexed_count
  FROM collections c`;

// sorted as the SQLite store sorts them (code units, not the database collation)
const toView = (r: Raw): CollectionView => ({ ...r, settings: parseJson(r.settings, {}), data_source_ids: [...r.data_source_ids].sort() });

const LINK = `INSERT INTO collection_sources (tenant_id, collection_id, data_source_id)
  SELECT $1, $2, s FROM unnest($3::text[]) AS s ON CONFLICT DO NOTHING`;

async function setSources(q: Queryable, tenantId: string, collectionId: string, ids: string[]): Promise<void> {
  await q.query("DELETE FROM collection_sources WHERE tenant_id = $1 AND collection_id = $2", [tenantId, collectionId]);
  await q.query(LINK, [tenantId, collectionId, ids]);
}

async function sourceLanguages(pool: Pool, tenantId: string, sourceIds: string[]): Promise<CollectionLanguage[]> {
  if (sourceIds.length === 0) return [];
  const r = await pool.query<CollectionLanguage>(
    `SELECT cs.collection_id, cs.data_source_id, c.language FROM collection_sources cs
     JOIN collections c ON c.tenant_id = cs.tenant_id AND c.id = cs.collection_id
     WHERE cs.tenant_id = $1 AND c.tenant_id = $1 AND cs.data_source_id = ANY($2::text[]) ORDER BY cs.collection_id, cs.data_source_id`,
    [tenantId, sourceIds],
  );
  return r.rows;
}

export function collectionMethods(pool: Pool): CollectionCatalog {
  const existing = (table: string) => async (tenantId: string, ids: string[]) => {
    if (ids.length === 0) return [];
    const r = await pool.query<{ id: string }>(`SELECT id FROM ${table} WHERE tenant_id = $1 AND id = ANY($2::text[])`, [tenantId, ids]);
    return r.rows.map((x) => x.id);
  };
  return {
    async createCollection(row, ids) {
      await transaction(pool, async (c) => {
        await c.query("INSERT INTO collections (tenant_id, id, name, description, settings, created_at, language) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
          row.tenant_id,
          row.id,
          row.name,
          row.description,
          JSON.stringify(row.settings),
          row.created_at,
          row.language ?? null,
        ]);
        await c.query(LINK, [row.tenant_id, row.id, ids]);
      });
    },
    async listCollections(tenantId) {
      const r = await pool.query<Raw>(`${VIEW} WHERE c.tenant_id = $1 ORDER BY c.created_at DESC, c.id`, [tenantId]);
      return r.rows.map(toView);
    },
    async getCollection(tenantId, id) {
      const r = await pool.query<Raw>(`${VIEW} WHERE c.tenant_id = $1 AND c.id = $2`, [tenantId, id]);
      return r.rows[0] ? toView(r.rows[0]) : null;
    },
    async collectionScope(tenantId, id) {
      const r = await pool.query<{ settings: string; ids: string[]; language: string | null }>(
        `SELECT c.settings, c.language, ARRAY(SELECT cs.data_source_id FROM collection_sources cs
                                  WHERE cs.tenant_id = $1 AND cs.collection_id = c.id) AS ids
         FROM collections c WHERE c.tenant_id = $1 AND c.id = $2`,
        [tenantId, id],
      );
      const row = r.rows[0];
      return row ? { settings: parseJson(row.settings, {}), data_source_ids: row.ids, language: row.language } : null;
    },
    sourceLanguages: (tenantId, sourceIds) => sourceLanguages(pool, tenantId, sourceIds),
    async updateCollection(tenantId, id, p) {
      return transaction(pool, async (c) => {
        const found = await c.query("SELECT 1 FROM collections WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, id]);
        if (found.rowCount === 0) return false;
        await c.query(
          `UPDATE collections SET name = COALESCE($3, name), description = COALESCE($4, description), settings = COALESCE($5, settings),
             language = COALESCE($6, language)
           WHERE tenant_id = $1 AND id = $2`,
          [tenantId, id, p.name ?? null, p.description ?? null, p.settings !== undefined ? JSON.stringify(p.settings) : null, p.language ?? null],
        );
        if (p.data_source_ids !== undefined) await setSources(c, tenantId, id, p.data_source_ids);
        return true;
      });
    },
    async deleteCollection(tenantId, id) {
      const r = await pool.query("DELETE FROM collections WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
      return (r.rowCount ?? 0) > 0;
    },
    async attachSource(tenantId, collectionId, sourceId) {
      await pool.query(LINK, [tenantId, collectionId, [sourceId]]);
    },
    async detachSource(tenantId, collectionId, sourceId) {
      const r = await pool.query("DELETE FROM collection_sources WHERE tenant_id = $1 AND collection_id = $2 AND data_source_id = $3", [
        tenantId,
        collectionId,
        sourceId,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
    existingSourceIds: existing("data_sources"),
    existingCollectionIds: existing("collections"),
  };
}
