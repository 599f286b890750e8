import type { DB } from "../db.js";
import { LimitReached, type SourceRow, type SourceView } from "../../content-types.js";
import type { SourceCatalog } from "../../content-store.js";
import { parseJson } from "./json.js";
import { removeChunkEntries } from "./index-entries.js";

type Raw = Omit<SourceView, "configuration" | "collection_ids"> & { configuration: string; collection_ids: string };

const VIEW = `
  SELECT s.*,
    (SELECT json_group_array(cs.collection_id) FROM collection_sources cs WHERE cs.data_source_id = s.id) AS collection_ids,
    (SELECT count(*) FROM documents d WHERE d.data_source_id = s.id) AS document_count,
    (SELECT count(*) FROM documents d WHERE d.data_source_id = s.id AND d.status = 'indexed') AS indexed_count,
    (SELECT count(*) FROM documents d WHERE d.data_source_id = s.id AND d.status = 'failed')
      -- plus the pages the source's latest crawl could not fetch (they have no document)
      + (SELECT count(*) FROM crawl_failures f WHERE f.job_id =
          (SELECT j.id FROM crawl_jobs j WHERE j.data_source_id = s.id ORDER BY j.created_at DESC, j.id DESC LIMIT 1)) AS failed_count,
    (SELECT count(*) FROM documents d WHERE d.data_source_id = s.id AND d.status IN ('queued', 'processing')) AS pending_count,
    (SELECT count(*) FROM chunks c WHERE c.data_source_id = s.id AND c.embedded_in IS NULL) AS chunks_pending_vectors
  FROM data_sources s`;

const toView = (r: Raw): SourceView => ({
  ...r,
  configuration: parseJson(r.configuration, {}),
  collection_ids: parseJson<string[]>(r.collection_ids, []).sort(),
});

export function sourceMethods(db: DB): SourceCatalog {
  const create = db.transaction((row: SourceRow, collectionIds: string[], limit: number | null) => {
    if (limit !== null) {
      const used = (db.prepare("SELECT count(*) AS n FROM data_sources WHERE tenant_id = ?").get(row.tenant_id) as { n: number }).n;
      if (used + 1 > limit) throw new LimitReached("sources", used, limit, 1);
    }
    db.prepare(
      `INSERT INTO data_sources (id, tenant_id, name, source_type, configuration, error, last_synced_at, created_at)
       VALUES (?, ?, ?, ?, ?, NULL, NULL, ?)`,
    ).run(row.id, row.tenant_id, row.name, row.source_type, JSON.stringify(row.configuration), row.created_at);
    const link = db.prepare("INSERT OR IGNORE INTO collection_sources (tenant_id, collection_id, data_source_id) VALUES (?, ?, ?)");
    for (const c of collectionIds) link.run(row.tenant_id, c, row.id);
  });
  const remove = db.transaction((tenantId: string, id: string): string[] | null => {
    const exists = db.prepare("SELECT 1 FROM data_sources WHERE tenant_id = ? AND id = ?").get(tenantId, id);
    if (!exists) return null;
    const docs = (db.prepare("SELECT id FROM documents WHERE tenant_id = ? AND data_source_id = ?").all(tenantId, id) as { id: string }[]).map(
      (r) => r.id,
    );
    removeChunkEntries(db, "c.tenant_id = ? AND c.data_source_id = ?", [tenantId, id]);
    db.prepare("DELETE FROM jobs WHERE tenant_id = ? AND subject IN (SELECT value FROM json_each(?))").run(tenantId, JSON.stringify([id, ...docs]));
    db.prepare("DELETE FROM data_sources WHERE tenant_id = ? AND id = ?").run(tenantId, id);
    return docs;
  });
  return {
    async createSource(row, collectionIds, limit) {
      create(row, collectionIds, limit);
    },
    async listSources(tenantId, collectionId) {
      const rows = collectionId
        ? (db
            .prepare(
              `${VIEW} WHERE s.tenant_id = ? AND s.id IN (SELECT data_source_id FROM collection_sources WHERE collection_id = ?)
               ORDER BY s.created_at DESC, s.id`,
            )
            .all(tenantId, collectionId) as Raw[])
        : (db.prepare(`${VIEW} WHERE s.tenant_id = ? ORDER BY s.created_at DESC, s.id`).all(tenantId) as Raw[]);
      return rows.map(toView);
    },
    async getSource(tenantId, id) {
      const r = db.prepare(`${VIEW} WHERE s.tenant_id = ? AND s.id = ?`).get(tenantId, id) as Raw | undefined;
      return r ? toView(r) : null;
    },
    async updateSource(tenantId, id, patch) {
      if (patch.configuration !== undefined) {
        db.prepare("UPDATE data_sources SET configuration = ? WHERE tenant_id = ? AND id = ?").run(JSON.stringify(patch.configuration), tenantId, id);
      }
      if (patch.error !== undefined) db.prepare("UPDATE data_sources SET error = ? WHERE tenant_id = ? AND id = ?").run(patch.error, tenantId, id);
      if (patch.last_synced_at !== undefined) {
        db.prepare("UPDATE data_sources SET last_synced_at = ? WHERE tenant_id = ? AND id = ?").run(patch.last_synced_at, tenantId, id);
      }
    },
    async deleteSource(tenantId, id) {
      return remove(tenantId, id);
    },
  };
}
