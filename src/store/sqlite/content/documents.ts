import type { DB } from "../db.js";
import {
  LimitReached,
  type ChunkRow,
  type DocumentMethods,
  type DocumentRow,
  type IncomingDocument,
  type NewChunk,
  type Json,
} from "../../content-types.js";
import { parseJson, vectorTable } from "./json.js";
import { removeChunkEntries, vectorBytes } from "./index-entries.js";
import { chunkTermsWriter } from "./lexical/lexical-index.js";
import { headingsField } from "./lexical/analyze.js";

type RawDoc = Omit<DocumentRow, "metadata"> & { metadata: string };
type RawChunk = Omit<ChunkRow, "id" | "heading_path" | "metadata"> & { id: number; heading_path: string; metadata: string };

export const toDoc = (r: RawDoc): DocumentRow => ({ ...r, metadata: parseJson(r.metadata, {}) });
export const toChunk = (r: RawChunk): ChunkRow => ({
  ...r,
  id: String(r.id),
  heading_path: parseJson<string[]>(r.heading_path, []),
  metadata: parseJson(r.metadata, {}),
});

/** a document row with how many of its chunks still wait for a vector (partial index on chunks) */
const DOC = `SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id AND c.embedded_in IS NULL) AS chunks_pending_vectors
  FROM documents d`;

export function documentMethods(db: DB): DocumentMethods {
  const byId = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.id = ?`);
  const bySource = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.data_source_id = ? AND d.source = ?`);

  const upsert = db.transaction((tenantId: string, sourceId: string, docs: IncomingDocument[], limit: number | null) => {
    const now = new Date().toISOString();
    const existing = docs.map((d) => bySource.get(tenantId, sourceId, d.source) as RawDoc | undefined);
    const adding = existing.filter((e) => !e).length;
    if (limit !== null && adding > 0) {
      const used = (db.prepare("SELECT count(*) AS n FROM documents WHERE tenant_id = ?").get(tenantId) as { n: number }).n;
      if (used + adding > limit) throw new LimitReached("documents", used, limit, adding);
    }
    const out: DocumentRow[] = [];
    docs.forEach((d, i) => {
      const prev = existing[i];
      if (prev) {
        db.prepare(
          `UPDATE documents SET title = ?, kind = ?, content_type = ?, size_bytes = ?, content_hash = ?, metadata = ?,
             status = 'queued', error = NULL, updated_at = ? WHERE id = ?`,
        ).run(d.title, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now, prev.id);
      } else {
        db.prepare(
          `INSERT INTO documents (id, tenant_id, data_source_id, title, source_type, source, status, error, kind, content_type,
             size_bytes, content_hash, metadata, chunk_count, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'queued', NULL, ?, ?, ?, ?, ?, 0, ?, ?)`,
        ).run(d.id, tenantId, sourceId, d.title, d.source_type, d.source, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now, now);
      }
      const id = prev?.id ?? d.id;
      out.push(toDoc(byId.get(tenantId, id) as RawDoc));
    });
    return out;
  });

  // A failed document has no chunks: whatever an earlier version indexed (a re-upload that fails,
  // a reindex that no longer parses) leaves search with it, so counts and results agree.
  const setStatus = db.transaction((tenantId: string, id: string, status: DocumentRow["status"], error: string | null) => {
    if (status === "failed") {
      removeChunkEntries(db, "c.tenant_id = ? AND c.document_id = ?", [tenantId, id]);
      db.prepare("DELETE FROM chunks WHERE tenant_id = ? AND document_id = ?").run(tenantId, id);
    }
    db.prepare(
      `UPDATE documents SET status = ?, error = ?, updated_at = ?${status === "failed" ? ", chunk_count = 0" : ""} WHERE tenant_id = ? AND id = ?`,
    ).run(status, error, new Date().toISOString(), tenantId, id);
  });

  const remove = db.transaction((tenantId: string, id: string) => {
    if (!byId.get(tenantId, id)) return false;
    removeChunkEntries(db, "c.tenant_id = ? AND c.document_id = ?", [tenantId, id]);
    db.prepare("DELETE FROM jobs WHERE tenant_id = ? AND subject = ?").run(tenantId, id);
    db.prepare("DELETE FROM documents WHERE tenant_id = ? AND id = ?").run(tenantId, id);
    return true;
  });

  const replace = db.transaction(
    (
      tenantId: string,
      documentId: string,
      doc: { title: string; metadata: Json },
      chunks: NewChunk[],
      vectors: { indexName: string; values: Float32Array[] } | null,
    ) => {
      const row = byId.get(tenantId, documentId) as RawDoc | undefined;
      if (!row) return; // deleted while it was being processed: nothing to index
      removeChunkEntries(db, "c.tenant_id = ? AND c.document_id = ?", [tenantId, documentId]);
      db.prepare("DELETE FROM chunks WHERE tenant_id = ? AND document_id = ?").run(tenantId, documentId);
      const insChunk = db.prepare(
        `INSERT INTO chunks (tenant_id, document_id, data_source_id, position, heading_path, text, token_count, metadata, embedded_in)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insTerms = chunkTermsWriter(db);
      const vt = vectors ? vectorTable(vectors.indexName) : null;
      const insVec = vt
        ? db.prepare(`INSERT INTO ${vt} (chunk_id, embedding, tenant_id, data_source_id) VALUES (?, ?, ?, ?)`)
        : null;
      chunks.forEach((c, i) => {
        const res = insChunk.run(
          tenantId,
          documentId,
          row.data_source_id,
          c.position,
          JSON.stringify(c.heading_path),
          c.text,
          c.token_count,
          JSON.stringify(c.metadata),
          vectors ? vectors.indexName : null,
        );
        const id = Number(res.lastInsertRowid);
        insTerms(id, tenantId, row.data_source_id, { title: doc.title, headings: headingsField(c.heading_path), body: c.text });
        if (insVec && vectors) insVec.run(BigInt(id), vectorBytes(vectors.values[i]), tenantId, row.data_source_id);
      });
      db.prepare(
        `UPDATE documents SET title = ?, metadata = ?, status = 'indexed', error = NULL, chunk_count = ?, updated_at = ?
         WHERE id = ?`,
      ).run(doc.title, JSON.stringify(doc.metadata), chunks.length, new Date().toISOString(), documentId);
    },
  );

  return {
    async upsertDocuments(tenantId, sourceId, docs, limit) {
      return upsert(tenantId, sourceId, docs, limit);
    },
    async listDocuments(tenantId, f) {
      const where = ["d.tenant_id = ?"];
      const params: unknown[] = [tenantId];
      if (f.sourceId) {
        where.push("d.data_source_id = ?");
        params.push(f.sourceId);
      }
      if (f.collectionId) {
        where.push("d.data_source_id IN (SELECT data_source_id FROM collection_sources WHERE collection_id = ?)");
        params.push(f.collectionId);
      }
      if (f.status) {
        where.push("d.status = ?");
        params.push(f.status);
      }
      if (f.before) {
        where.push("(d.created_at < ? OR (d.created_at = ? AND d.id < ?))");
        params.push(f.before.created_at, f.before.created_at, f.before.id);
      }
      const sql = `${DOC} WHERE ${where.join(" AND ")} ORDER BY d.created_at DESC, d.id DESC LIMIT ?`;
      return (db.prepare(sql).all(...params, f.limit) as RawDoc[]).map(toDoc);
    },
    async getDocument(tenantId, id) {
      const r = byId.get(tenantId, id) as RawDoc | undefined;
      return r ? toDoc(r) : null;
    },
    async findDocumentBySource(tenantId, sourceId, source) {
      const r = bySource.get(tenantId, sourceId, source) as RawDoc | undefined;
      return r ? toDoc(r) : null;
    },
    async deleteDocument(tenantId, id) {
      return remove(tenantId, id);
    },
    async setDocumentStatus(tenantId, id, status, error = null) {
      setStatus(tenantId, id, status, error);
    },
    async listChunks(tenantId, documentId, limit) {
      const total = (db.prepare("SELECT count(*) AS n FROM chunks WHERE tenant_id = ? AND document_id = ?").get(tenantId, documentId) as { n: number }).n;
      const rows = db
        .prepare("SELECT * FROM chunks WHERE tenant_id = ? AND document_id = ? ORDER BY position LIMIT ?")
        .all(tenantId, documentId, limit) as RawChunk[];
      return { total, chunks: rows.map(toChunk) };
    },
    async replaceDocumentIndex(tenantId, documentId, doc, chunks, vectors) {
      replace(tenantId, documentId, doc, chunks, vectors);
    },
    async documentIds(tenantId, sourceId) {
      const rows = sourceId
        ? db.prepare("SELECT id FROM documents WHERE tenant_id = ? AND data_source_id = ? ORDER BY created_at").all(tenantId, sourceId)
        : db.prepare("SELECT id FROM documents WHERE tenant_id = ? ORDER BY created_at").all(tenantId);
      return (rows as { id: string }[]).map((r) => r.id);
    },
  };
}
