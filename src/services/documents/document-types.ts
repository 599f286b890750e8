// Shared shapes of the document operations: the API's output, the dependencies, and the two
// helpers document-reads.ts and document-uploads.ts both use (the tenant's row, queueing a job).
import type { Store } from "../../store/types.js";
import type { ChunkSearch, CollectionCatalog, DocumentCatalog, SourceCatalog } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import type { ChunkRow, DocumentRow } from "../../store/content-types.js";
import { notFound } from "../errors.js";
import type { AuditService } from "../tenants/audit.js";
import { QueueUnavailableError, type JobQueue } from "../../jobs/types.js";

export interface DocumentOut {
  id: string;
  data_source_id: string;
  title: string;
  source_type: string;
  source: string;
  status: string;
  error: string | null;
  created_at: string;
  updated_at: string;
  content_type: string | null;
  size_bytes: number | null;
  chunk_count: number;
  /** extension: chunks that are lexically searchable but still wait for their vector */
  chunks_pending_vectors: number;
  metadata: Record<string, unknown>;
}

export const documentOut = (d: DocumentRow): DocumentOut => ({
  id: d.id,
  data_source_id: d.data_source_id,
  title: d.title,
  source_type: d.source_type,
  source: d.source,
  status: d.status,
  error: d.error,
  created_at: d.created_at,
  updated_at: d.updated_at,
  content_type: d.content_type,
  size_bytes: d.size_bytes,
  chunk_count: d.chunk_count,
  chunks_pending_vectors: d.chunks_pending_vectors,
  metadata: d.metadata,
});

export const chunkOut = (c: ChunkRow) => ({
  id: chunkId(c.id),
  document_id: c.document_id,
  position: c.position,
  heading_path: c.heading_path,
  text: c.text,
  token_count: c.token_count,
  metadata: c.metadata,
  embedded: c.embedded_in !== null,
});

/** Chunk ids are opaque strings of the store, "chk_<id>" in the API. */
export const chunkId = (id: string) => `chk_${id}`;

export interface UploadedFile {
  /** name as sent by the client */
  filename: string;
  mimetype: string | undefined;
  tempPath: string;
  size: number;
}

export interface DocumentServiceDeps {
  store: { content: DocumentCatalog & SourceCatalog & CollectionCatalog & Pick<ChunkSearch, "chunksInRanges"> };
  files: FileStore;
  profileName: string;
  /** where ingest jobs go */
  queue: Pick<JobQueue, "enqueue">;
  log?: { warn(obj: object, msg: string): void };
  audit?: Pick<AuditService, "record">;
}

/**
 * Queues the document's ingest job. The row is committed (queued) already; if the queue cannot
 * take the job now, ingest recovery queues it once the queue is back, so the upload still stands.
 */
export async function queueIngest(deps: Pick<DocumentServiceDeps, "queue" | "log">, tenantId: string, documentId: string): Promise<void> {
  try {
    await deps.queue.enqueue({ tenant_id: tenantId, kind: "ingest", subject: documentId });
  } catch (err) {
    if (!(err instanceof QueueUnavailableError)) throw err;
    deps.log?.warn({ document: documentId, err: err.message }, "ingest job not queued now; recovery will queue it");
  }
}

/** The tenant's document, or 404. */
export async function documentRow(deps: Pick<DocumentServiceDeps, "store">, tenantId: string, id: string): Promise<DocumentRow> {
  const d = await deps.store.content.getDocument(tenantId, id);
  if (!d) throw notFound("Document", id);
  return d;
}
