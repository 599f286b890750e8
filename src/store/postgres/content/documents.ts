// Documents on PostgreSQL: uploads (upsert under the tenant's limit lock), listing and status; the
// swap of a document's chunks for a fresh index is chunk-writes.ts.
import { transaction, type Client, type Pool } from "../db.js";
import { LimitReached, type DocumentRow } from "../../content-types.js";
import type { DocumentCatalog } from "../../content-store.js";
import { CHUNK_COLS, LIMIT_LOCK, LOCK_DOCUMENTS, toChunk, toDoc, type RawChunk, type RawDoc } from "./rows.js";

/** a document row with how many of its chunks still wait for a vector (partial index on chunks) */
const DOC = `SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id
    AND c.embedded_in IS NULL)::int AS chunks_pending_vectors
  FROM documents d`;

async function upsert(c: Client, tenantId: string, sourceId: string, docs: Parameters<DocumentCatalog["upsertDocuments"]>[2], limit: number | null) {
  // one upload of the tenant at a time counts and inserts: limits stay exact across processes, and
  // two uploads of the same new name cannot both insert it
  await c.query(LIMIT_LOCK, [LOCK_DOCUMENTS, tenantId]);
  const now = new Date().toISOString();
  const prev = await c.query<{ id: string; source: string }>(
    "SELECT id, source FROM documents WHERE tenant_id = $1 AND data_source_id = $2 AND source = ANY($3::text[])",
    [tenantId, sourceId, docs.map((d) => d.source)],
  );
  const existing = new Map(prev.rows.map((r) => [r.source, r.id]));
  const adding = new Set(docs.filter((d) => !existing.has(d.source)).map((d) => d.source)).size;
  if (limit !== null && adding > 0) {
    const used = (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM documents WHERE tenant_id = $1", [tenantId])).rows[0]!.n;
    if (used + adding > limit) throw new LimitReached("documents", used, limit, adding);
  }
  const ids: string[] = [];
  for (const d of docs) {
    const id = existing.get(d.source);
    if (id) {
      await c.query(
        `UPDATE documents SET title = $3, kind = $4, content_type = $5, size_bytes = $6, content_hash = $7, metadata = $8,
           status = 'queued', error = NULL, updated_at = $9 WHERE tenant_id = $1 AND id = $2`,
        [tenantId, id, d.title, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now],
      );
    } else {
      await c.query(
        `INSERT INTO documents (tenant_id, id, data_source_id, title, source_type, source, status, error, kind, content_type,
           size_bytes, content_hash, metadata, chunk_count, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', NULL, $7, $8, $9, $10, $11, 0, $12, $12)`,
        [tenantId, d.id, sourceId, d.title, d.source_type, d.source, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now],
      );
      existing.set(d.source, d.id);
    }
    ids.push(existing.get(d.source)!);
  }
  const rows = await c.query<RawDoc>(`${DOC} WHERE d.tenant_id = $1 AND d.id = ANY($2::text[])`, [tenantId, ids]);
  const byId = new Map(rows.rows.map((r) => [r.id, toDoc(r)]));
  return ids.map((id) => byId.get(id)!);
}

type ListFilter = Parameters<DocumentCatalog["listDocuments"]>[1];

/** The listing's WHERE clause and parameters, the limit last. */
function listQuery(tenantId: string, f: ListFilter): { where: string[]; params: unknown[] } {
  const where = ["d.tenant_id = $1"];
  const params: unknown[] = [tenantId];
  const add = (cond: (n: number) => string, v: unknown) => {
    params.push(v);
    where.push(cond(params.length));
  };
  if (f.sourceId) add((n) => `d.data_source_id = $${n}`, f.sourceId);
  if (f.collectionId) {
    add((n) => `d.data_source_id IN (SELECT data_source_id FROM collection_sources WHERE tenant_id = $1 AND collection_id = $${n})`, f.collectionId);
  }
  if (f.status) add((n) => `d.status = $${n}`, f.status);
  if (f.before) {
    params.push(f.before.created_at);
    add((n) => `(d.created_at, d.id) < ($${n - 1}, $${n})`, f.before.id);
  }
  params.push(f.limit);
  return { where, params };
}

function documentReads(pool: Pool): Pick<DocumentCatalog, "listDocuments" | "getDocument" | "findDocumentBySource" | "listChunks" | "documentIds" | "chunkCount"> {
  const one = async (sql: string, params: unknown[]): Promise<DocumentRow | null> => {
    const r = await pool.query<RawDoc>(sql, params);
    return r.rows[0] ? toDoc(r.rows[0]) : null;
  };
  return {
    async listDocuments(tenantId, f) {
      const { where, params } = listQuery(tenantId, f);
      const r = await pool.query<RawDoc>(
        `${DOC} WHERE ${where.join(" AND ")} ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length}`,
        params,
      );
      return r.rows.map(toDoc);
    },
    async getDocument(tenantId, id) {
      return one(`${DOC} WHERE d.tenant_id = $1 AND d.id = $2`, [tenantId, id]);
    },
    async findDocumentBySource(tenantId, sourceId, source) {
      return one(`${DOC} WHERE d.tenant_id = $1 AND d.data_source_id = $2 AND d.source = $3`, [tenantId, sourceId, source]);
    },
    async listChunks(tenantId, documentId, limit) {
      const total = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1 AND document_id = $2", [tenantId, documentId]))
        .rows[0]!.n;
      const r = await pool.query<RawChunk>(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.tenant_id = $1 AND c.document_id = $2 ORDER BY c.position LIMIT $3`, [
        tenantId,
        documentId,
        limit,
      ]);
      return { total, chunks: r.rows.map(toChunk) };
    },
    async documentIds(tenantId, sourceId) {
      const r = sourceId
        ? await pool.query<{ id: string }>("SELECT id FROM documents WHERE tenant_id = $1 AND data_source_id = $2 ORDER BY created_at, id", [tenantId, sourceId])
        : await pool.query<{ id: string }>("SELECT id FROM documents WHERE tenant_id = $1 ORDER BY created_at, id", [tenantId]);
      return r.rows.map((x) => x.id);
    },
    async chunkCount(tenantId, sourceIds) {
      if (sourceIds.length === 0) return 0;
      const r = await pool.query<{ n: number }>(
        "SELECT coalesce(sum(chunk_count), 0)::int AS n FROM documents WHERE tenant_id = $1 AND status = 'indexed' AND data_source_id = ANY($2::text[])",
        [tenantId, sourceIds],
      );
      return r.rows[0]!.n;
    },
  };
}

function documentWrites(pool: Pool): Pick<DocumentCatalog, "upsertDocuments" | "deleteDocument" | "setDocumentStatus"> {
  return {
    async upsertDocuments(tenantId, sourceId, docs, limit) {
      return transaction(pool, (c) => upsert(c, tenantId, sourceId, docs, limit));
    },
    async deleteDocument(tenantId, id) {
      return transaction(pool, async (c) => {
        const r = await c.query("DELETE FROM documents WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
        if ((r.rowCount ?? 0) === 0) return false;
        await c.query("DELETE FROM jobs WHERE tenant_id = $1 AND subject = $2", [tenantId, id]);
        return true;
      });
    },
    async setDocumentStatus(tenantId, id, status, error = null) {
      // A failed document has no chunks: whatever an earlier version indexed leaves search with it.
      await transaction(pool, async (c) => {
        if (status === "failed") await c.query("DELETE FROM chunks WHERE tenant_id = $1 AND document_id = $2", [tenantId, id]);
        await c.query(
          `UPDATE documents SET status = $3, error = $4, updated_at = $5${status === "failed" ? ", chunk_count = 0" : ""}
           WHERE tenant_id = $1 AND id = $2`,
          [tenantId, id, status, error, new Date().toISOString()],
        );
      });
    },
  };
}

/** the ingest recovery's query (DocumentCatalog.documentsAwaitingIngest) */
function awaitingIngest(pool: Pool): Pick<DocumentCatalog, "documentsAwaitingIngest"> {
  return {
    async documentsAwaitingIngest(updatedBefore, limit) {
      const r = await pool.query<{ tenant_id: string; id: string }>(
        `SELECT tenant_id, id FROM documents WHERE status IN ('queued', 'processing') AND updated_at < $1 ORDER BY updated_at LIMIT $2`,
        [updatedBefore.toISOString(), limit],
      );
      return r.rows;
    },
  };
}

export function documentMethods(pool: Pool): DocumentCatalog {
  return { ...documentReads(pool), ...documentWrites(pool), ...awaitingIngest(pool) };
}
