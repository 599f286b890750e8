import { transaction, type Pool } from "../db.js";
import { LimitReached, type SourceView } from "../../content-types.js";
import type { SourceCatalog } from "../../content-store.js";
import { LIMIT_LOCK, LOCK_SOURCES, parseJson } from "./rows.js";

type Raw = Omit<SourceView, "configuration"> & { configuration: string };

/**
 * The source view. failed_count adds the pages the source's latest crawl could not fetch when the
 * crawl tables exist (they belong to the crawls store, whose migrations come first in a full
 * deployment; a content-only database has no crawls).
 */
const view = (withCrawls: boolean) => `
  SELECT s.tenant_id, s.id, s.name, s.source_type, s.configuration, s.error, s.last_synced_at, s.created_at,
    ARRAY(SELECT cs.collection_id FROM collection_sources cs WHERE cs.tenant_id = s.tenant_id AND cs.data_source_id = s.id) AS collection_ids,
    (SELECT count(*) FROM documents d WHERE d.tenant_id = s.tenant_id AND d.data_source_id = s.id)::int AS document_count,
    (SELECT count(*) FROM documents d WHERE d.tenant_id = s.tenant_id AND d.data_source_id = s.id AND d.status = 'indexed')::int AS indexed_count,
    ((SELECT count(*) FROM documents d WHERE d.tenant_id = s.tenant_id AND d.data_source_id = s.id AND d.status = 'failed')
      ${
        withCrawls
          ? `+ (SELECT count(*) FROM crawl_failures f WHERE f.tenant_id = s.tenant_id AND f.job_id =
              (SELECT j.id FROM crawl_jobs j WHERE j.tenant_id = s.tenant_id AND j.data_source_id = s.id
               ORDER BY j.created_at DESC, j.id DESC LIMIT 1))`
          : ""
      })::int AS failed_count,
    (SELECT count(*) FROM documents d WHERE d.tenant_id = s.tenant_id AND d.data_source_id = s.id
       AND d.status IN ('queued', 'processing'))::int AS pending_count,
    (SELECT count(*) FROM chunks c WHERE c.tenant_id = s.tenant_id AND c.data_source_id = s.id AND c.embedded_in IS NULL)::int
      AS chunks_pending_vectors
  FROM data_sources s`;

const toView = (r: Raw): SourceView => ({ ...r, configuration: parseJson(r.configuration, {}), collection_ids: [...r.collection_ids].sort() });

export function sourceMethods(pool: Pool): SourceCatalog {
  let viewSql: Promise<string> | null = null;
  const VIEW = () =>
    (viewSql ??= pool
      .query<{ ok: boolean }>("SELECT to_regclass('crawl_failures') IS NOT NULL AND to_regclass('crawl_jobs') IS NOT NULL AS ok")
      .then((r) => view(r.rows[0]!.ok)));
  return {
    async createSource(row, collectionIds, limit) {
      await transaction(pool, async (c) => {
        if (limit !== null) {
          // exact across processes: every creator of this tenant's sources counts under the lock
          await c.query(LIMIT_LOCK, [LOCK_SOURCES, row.tenant_id]);
          const used = (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM data_sources WHERE tenant_id = $1", [row.tenant_id])).rows[0]!.n;
          if (used + 1 > limit) throw new LimitReached("sources", used, limit, 1);
        }
        await c.query(
          `INSERT INTO data_sources (tenant_id, id, name, source_type, configuration, error, last_synced_at, created_at)
           VALUES ($1, $2, $3, $4, $5, NULL, NULL, $6)`,
          [row.tenant_id, row.id, row.name, row.source_type, JSON.stringify(row.configuration), row.created_at],
        );
        await c.query(
          `INSERT INTO collection_sources (tenant_id, collection_id, data_source_id)
           SELECT $1, col, $2 FROM unnest($3::text[]) AS col ON CONFLICT DO NOTHING`,
          [row.tenant_id, row.id, collectionIds],
        );
      });
    },
    async listSources(tenantId, collectionId) {
      const r = collectionId
        ? await pool.query<Raw>(
            `${await VIEW()} WHERE s.tenant_id = $1 AND s.id IN
               (SELECT data_source_id FROM collection_sources WHERE tenant_id = $1 AND collection_id = $2)
             ORDER BY s.created_at DESC, s.id`,
            [tenantId, collectionId],
          )
        : await pool.query<Raw>(`${await VIEW()} WHERE s.tenant_id = $1 ORDER BY s.created_at DESC, s.id`, [tenantId]);
      return r.rows.map(toView);
    },
    async getSource(tenantId, id) {
      const r = await pool.query<Raw>(`${await VIEW()} WHERE s.tenant_id = $1 AND s.id = $2`, [tenantId, id]);
      return r.rows[0] ? toView(r.rows[0]) : null;
    },
    async updateSource(tenantId, id, patch) {
      const sets: string[] = [];
      const params: unknown[] = [tenantId, id];
      const set = (col: string, v: unknown) => {
        params.push(v);
        sets.push(`${col} = $${params.length}`);
      };
      if (patch.configuration !== undefined) set("configuration", JSON.stringify(patch.configuration));
      if (patch.error !== undefined) set("error", patch.error);
      if (patch.last_synced_at !== undefined) set("last_synced_at", patch.last_synced_at);
      if (sets.length === 0) return;
      await pool.query(`UPDATE data_sources SET ${sets.join(", ")} WHERE tenant_id = $1 AND id = $2`, params);
    },
    async deleteSource(tenantId, id) {
      return transaction(pool, async (c) => {
        const found = await c.query("SELECT 1 FROM data_sources WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, id]);
        if (found.rowCount === 0) return null;
        const docs = (await c.query<{ id: string }>("SELECT id FROM documents WHERE tenant_id = $1 AND data_source_id = $2", [tenantId, id])).rows.map(
          (r) => r.id,
        );
        await c.query("DELETE FROM jobs WHERE tenant_id = $1 AND subject = ANY($2::text[])", [tenantId, [id, ...docs]]);
        // documents, chunks, their vectors and lexical statistics follow by cascade and triggers
        await c.query("DELETE FROM data_sources WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
        return docs;
      });
    },
  };
}
