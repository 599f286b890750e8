// Documents and their chunks in SQLite: reads, writes and status changes here; replacing a
// document's index (chunks, terms, vectors) is document-index.ts.
import type { DB } from "../db.js";
import { LimitReached, type DocumentRow, type IncomingDocument } from "../../content-types.js";
import type { DocumentCatalog } from "../../content-store.js";
import { removeChunkEntries } from "./index-entries.js";
import { DOC, toChunk, toDoc, type RawChunk, type RawDoc } from "./document-rows.js";

export { toChunk, toDoc } from "./document-rows.js";

type DocumentReads = Pick<DocumentCatalog, "listDocuments" | "getDocument" | "findDocumentBySource" | "listChunks" | "documentIds" | "chunkCount">;
type DocumentWrites = Pick<DocumentCatalog, "upsertDocuments" | "deleteDocument" | "setDocumentStatus">;

export function documentMethods(db: DB): DocumentCatalog {
  return { ...documentReads(db), ...documentWrites(db), ...awaitingIngest(db) };
}

/** the ingest recovery's query (DocumentCatalog.documentsAwaitingIngest) */
function awaitingIngest(db: DB): Pick<DocumentCatalog, "documentsAwaitingIngest"> {
  return {
    async documentsAwaitingIngest(updatedBefore, limit) {
      return db
        .prepare("SELECT tenant_id, id FROM documents WHERE status IN ('queued', 'processing') AND updated_at < ? ORDER BY updated_at LIMIT ?")
        .all(updatedBefore.toISOString(), limit) as { tenant_id: string; id: string }[];
    },
  };
}

function documentReads(db: DB): DocumentReads {
  const byId = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.id = ?`);
  const bySource = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.data_source_id = ? AND d.source = ?`);
  return {
    async listDocuments(tenantId, f) {
      const { where, params } = listFilter(tenantId, f);
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
    async listChunks(tenantId, documentId, limit) {
      const total = (db.prepare("SELECT count(*) AS n FROM chunks WHERE tenant_id = ? AND document_id = ?").get(tenantId, documentId) as { n: number }).n;
      const rows = db
        .prepare("SELECT * FROM chunks WHERE tenant_id = ? AND document_id = ? ORDER BY position LIMIT ?")
        .all(tenantId, documentId, limit) as RawChunk[];
      return { total, chunks: rows.map(toChunk) };
    },
    async documentIds(tenantId, sourceId) {
      const rows = sourceId
        ? db.prepare("SELECT id FROM documents WHERE tenant_id = ? AND data_source_id = ? ORDER BY created_at").all(tenantId, sourceId)
        : db.prepare("SELECT id FROM documents WHERE tenant_id = ? ORDER BY created_at").all(tenantId);
      return (rows as { id: string }[]).map((r) => r.id);
    },
    async chunkCount(tenantId, sourceIds) {
      if (sourceIds.length === 0) return 0;
      const marks = sourceIds.map(() => "?").join(", ");
      const r = db.prepare(`SELECT coalesce(sum(chunk_count), 0) AS n FROM documents WHERE tenant_id = ? AND status = 'indexed' AND data_source_id IN (${marks})`).get(tenantId, ...sourceIds) as { n: number };
      return r.n;
    },
  };
}

/** WHERE conditions (on documents d) and their parameters for listDocuments' filter. */
function listFilter(tenantId: string, f: Parameters<DocumentCatalog["listDocuments"]>[1]) {
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
  return { where, params };
}

function documentWrites(db: DB): DocumentWrites {
  const byId = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.id = ?`);
  const upsert = documentUpserter(db);

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

  return {
    async upsertDocuments(tenantId, sourceId, docs, limit) {
      return upsert.immediate(tenantId, sourceId, docs, limit);
    },
    async deleteDocument(tenantId, id) {
      return remove.immediate(tenantId, id);
    },
    async setDocumentStatus(tenantId, id, status, error = null) {
      setStatus.immediate(tenantId, id, status, error);
    },
  };
}

/**
 * Inserts the new documents and requeues the known ones (same source), all or none: the tenant's
 * document limit is checked against the new ones inside the transaction.
 */
function documentUpserter(db: DB) {
  const byId = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.id = ?`);
  const bySource = db.prepare(`${DOC} WHERE d.tenant_id = ? AND d.data_source_id = ? AND d.source = ?`);
  const update = db.prepare(
    `UPDATE documents SET title = ?, kind = ?, content_type = ?, size_bytes = ?, content_hash = ?, metadata = ?,
       status = 'queued', error = NULL, updated_at = ? WHERE id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO documents (id, tenant_id, data_source_id, title, source_type, source, status, error, kind, content_type,
       size_bytes, content_hash, metadata, chunk_count, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'queued', NULL, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const checkLimit = (tenantId: string, adding: number, limit: number | null) => {
    if (limit === null || adding === 0) return;
    const used = (db.prepare("SELECT count(*) AS n FROM documents WHERE tenant_id = ?").get(tenantId) as { n: number }).n;
    if (used + adding > limit) throw new LimitReached("documents", used, limit, adding);
  };
  return db.transaction((tenantId: string, sourceId: string, docs: IncomingDocument[], limit: number | null) => {
    const now = new Date().toISOString();
    const existing = docs.map((d) => bySource.get(tenantId, sourceId, d.source) as RawDoc | undefined);
    checkLimit(tenantId, existing.filter((e) => !e).length, limit);
    return docs.map((d, i): DocumentRow => {
      const prev = existing[i];
      if (prev) update.run(d.title, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now, prev.id);
      else insert.run(d.id, tenantId, sourceId, d.title, d.source_type, d.source, d.kind, d.content_type, d.size_bytes, d.content_hash, JSON.stringify(d.metadata), now, now);
      return toDoc(byId.get(tenantId, prev?.id ?? d.id) as RawDoc);
    });
  });
}
