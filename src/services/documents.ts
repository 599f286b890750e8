// Documents: listing, reading chunks, deleting, and accepting uploads. Uploads are validated as
// a batch before anything is stored: the route has already streamed each file to a temp file
// (enforcing the 50 MB limit while streaming); here types are sniffed from the bytes, then the
// batch is accepted atomically (services/acceptance.ts: bytes staged, rows committed with the
// document quota checked, bytes placed) and only then are the ingest jobs queued. The jobs are not
// part of the rows' transaction: a process that dies between the commit and the enqueue leaves
// queued documents without a job, and ingest recovery (runtime.ts ingestRecovery) queues them at
// the next start.
import fsp from "node:fs/promises";
import { createHash } from "node:crypto";
import pMap from "p-map";
import type { Store } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import { LimitReached, type ChunkRow, type DocumentRow, type DocumentStatus, type IncomingDocument } from "../store/content-types.js";
import { decodeKeyset, page } from "./paging.js";
import { newId } from "../store/ids.js";
import { tenantOf, type Principal } from "./auth.js";
import { badRequest, notFound, ServiceError, ValidationError } from "./errors.js";
import { limitsOf } from "./plans.js";
import { quotaExceededError } from "./quotas.js";
import { safeFileName, sniffFile, unsupportedFileMessage } from "../ingest/sniff.js";
import { acceptDocuments } from "./acceptance.js";
import type { AuditService } from "./audit.js";
import { QueueUnavailableError, type JobQueue } from "../jobs/types.js";
import { splitRecords } from "../ingest/parse/records.js";
import { isParseError } from "../ingest/parse/errors.js";

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

const titleFromName = (name: string) => name.replace(/\.[A-Za-z0-9]{1,8}$/, "") || name;

const PREPARE_CONCURRENCY = 8;

interface PreparedFile {
  doc: IncomingDocument;
  tempPath: string | null;
  /** why the file cannot be indexed, or null */
  failure: string | null;
}

/** Reads an uploaded temp file, sniffs its type and describes the document it becomes. */
async function prepareFile(f: UploadedFile): Promise<PreparedFile> {
  const name = safeFileName(f.filename || "upload");
  const bytes = await fsp.readFile(f.tempPath);
  let failure: string | null = null;
  let kind: string | null = null;
  if (bytes.length === 0) failure = `"${name}" is empty (0 bytes); there is nothing to index.`;
  else {
    const sniffed = await sniffFile(bytes, name, f.mimetype);
    if (sniffed.kind === null) failure = unsupportedFileMessage(name, sniffed.reason);
    else kind = sniffed.kind;
  }
  return {
    tempPath: f.tempPath,
    failure,
    doc: {
      id: newId("doc"),
      source: name,
      title: titleFromName(name),
      source_type: "upload",
      kind,
      content_type: f.mimetype ?? null,
      size_bytes: bytes.length,
      content_hash: createHash("sha256").update(bytes).digest("hex"),
      metadata: { filename: name, ...(kind ? { file_type: kind } : {}) },
    },
  };
}

/**
 * A records source (`configuration.records: true`) turns an uploaded CSV (one per data row) or
 * JSON array / JSON Lines file (one per element) into one Markdown document per record, named
 * "<file>#<n>", with the record's fields as its metadata (plus `filename`, `file_type` and
 * `record`, which win over fields of the same name). Other files, and files that are no records,
 * stay as they are (a file that cannot be split fails with the reason). `created` collects the
 * temp files written, for the caller's cleanup.
 */
async function splitIntoRecords(x: PreparedFile, created: string[]): Promise<PreparedFile[]> {
  const kind = x.doc.kind;
  if (x.failure || !x.tempPath || (kind !== "csv" && kind !== "json")) return [x];
  const bytes = await fsp.readFile(x.tempPath);
  let records;
  try {
    records = splitRecords(bytes, x.doc.source, kind, x.doc.title);
  } catch (err) {
    if (isParseError(err)) return [{ ...x, failure: err.message }];
    throw err;
  }
  const base = x.tempPath;
  return pMap(
    records,
    async (r): Promise<PreparedFile> => {
      const body = Buffer.from(r.markdown, "utf8");
      const tempPath = `${base}.record-${r.index}`;
      created.push(tempPath);
      await fsp.writeFile(tempPath, body);
      return {
        tempPath,
        failure: null,
        doc: {
          id: newId("doc"),
          source: `${x.doc.source}#${r.index}`,
          title: r.title,
          source_type: "upload",
          kind: "markdown",
          content_type: "text/markdown",
          size_bytes: body.length,
          content_hash: createHash("sha256").update(body).digest("hex"),
          metadata: { ...r.fields, filename: x.doc.source, file_type: kind, record: r.index },
        },
      };
    },
    { concurrency: PREPARE_CONCURRENCY },
  );
}

export interface DocumentServiceDeps {
  store: Store;
  files: FileStore;
  profileName: string;
  /** where ingest jobs go */
  queue: Pick<JobQueue, "enqueue">;
  log?: { warn(obj: object, msg: string): void };
  audit?: Pick<AuditService, "record">;
}

export function createDocumentService(deps: DocumentServiceDeps) {
  const content = deps.store.content;

  /**
   * Queues the document's ingest job. The row is committed (queued) already; if the queue cannot
   * take the job now, ingest recovery queues it once the queue is back, so the upload still stands.
   */
  async function queueIngest(tenantId: string, documentId: string): Promise<void> {
    try {
      await deps.queue.enqueue({ tenant_id: tenantId, kind: "ingest", subject: documentId });
    } catch (err) {
      if (!(err instanceof QueueUnavailableError)) throw err;
      deps.log?.warn({ document: documentId, err: err.message }, "ingest job not queued now; recovery will queue it");
    }
  }

  async function get(tenantId: string, id: string): Promise<DocumentRow> {
    const d = await content.getDocument(tenantId, id);
    if (!d) throw notFound("Document", id);
    return d;
  }

  /** newest first, `limit` (200) at a time; `next` is the cursor of the following page, if any */
  async function listPage(
    p: Principal,
    f: { collection_id?: string; data_source_id?: string; status?: DocumentStatus; limit?: number; cursor?: string },
  ): Promise<{ items: DocumentOut[]; next: string | null }> {
    const tenant = tenantOf(p);
    if (f.collection_id && !(await content.getCollection(tenant.id, f.collection_id))) throw notFound("Collection", f.collection_id);
    if (f.data_source_id && !(await content.getSource(tenant.id, f.data_source_id))) throw notFound("Data source", f.data_source_id);
    const limit = f.limit ?? 200;
    const rows = await content.listDocuments(tenant.id, {
      collectionId: f.collection_id,
      sourceId: f.data_source_id,
      status: f.status,
      before: f.cursor ? decodeKeyset(f.cursor) : undefined,
      limit: limit + 1,
    });
    const { items, next } = page(rows, limit);
    return { items: items.map(documentOut), next };
  }

  return {
    /** the first page only (the contract's plain list) */
    async list(p: Principal, f: { collection_id?: string; data_source_id?: string; status?: DocumentStatus; limit?: number }): Promise<DocumentOut[]> {
      return (await listPage(p, f)).items;
    },

    listPage,

    async get(p: Principal, id: string): Promise<DocumentOut> {
      return documentOut(await get(tenantOf(p).id, id));
    },

    async chunks(p: Principal, id: string, limit: number) {
      const tenant = tenantOf(p);
      await get(tenant.id, id);
      const { total, chunks } = await content.listChunks(tenant.id, id, limit);
      return { document_id: id, total, chunks: chunks.map(chunkOut) };
    },

    /**
     * The chunk at `position` with up to `window` neighbours each side, in order: how an agent
     * follows a citation (document_id and position are in every search hit and retrieve context).
     */
    async chunksAround(p: Principal, id: string, position: number, window: number) {
      const tenant = tenantOf(p);
      const doc = await get(tenant.id, id);
      const rows = await content.chunksInRanges(tenant.id, [{ documentId: id, fromPosition: position - window, toPosition: position + window }]);
      if (!rows.some((r) => r.position === position)) {
        const range = doc.chunk_count > 0 ? `positions 0 to ${doc.chunk_count - 1}` : "no indexed chunks yet";
        throw new ServiceError("not_found", `Document '${id}' has no chunk at position ${position} (${range}).`);
      }
      return { document: documentOut(doc), chunks: rows.map(chunkOut) };
    },

    /**
     * Re-parses, re-chunks and re-embeds stored content with the current profile. Documents keep
     * their status and old chunks (search keeps answering) until each one is replaced.
     */
    async reindex(p: Principal, sourceId?: string) {
      const tenant = tenantOf(p);
      if (sourceId && !(await content.getSource(tenant.id, sourceId))) throw notFound("Data source", sourceId);
      const ids = await content.documentIds(tenant.id, sourceId);
      for (const id of ids) await queueIngest(tenant.id, id);
      return { status: "queued", documents: ids.length, embedding_profile: deps.profileName };
    },

    async remove(p: Principal, id: string): Promise<void> {
      const tenant = tenantOf(p);
      if (!(await content.deleteDocument(tenant.id, id))) throw notFound("Document", id);
      await deps.files.remove(tenant.id, id);
      await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "document.deleted", target: { type: "document", id } });
    },

    /**
     * Accepts a batch. Files of an unsupported type or with no bytes become `failed` documents
     * with the reason, so one bad file does not lose the others; when no file of the batch can
     * be indexed the request is refused (415, or 422 for empty files) and nothing is stored.
     */
    async upload(p: Principal, sourceId: string, files: UploadedFile[]): Promise<DocumentOut[]> {
      const tenant = tenantOf(p);
      const recordTemps: string[] = [];
      try {
        const source = await content.getSource(tenant.id, sourceId);
        if (!source) throw notFound("Data source", sourceId);
        if (source.source_type !== "upload") {
          throw badRequest(`Data source '${sourceId}' is a ${source.source_type} source; upload files to a source of type 'upload'.`);
        }
        if (files.length === 0) {
          throw new ValidationError([{ type: "missing", loc: ["body", "files"], msg: "Field required: send one or more files", input: null }]);
        }
        // Files are read and sniffed a few at a time: one after another, each file's handful of
        // I/O steps waits behind every search the event loop serves meanwhile (an upload of 10
        // files took 5-30 s under 8 searching clients); all at once, 100 files of 50 MB would be
        // held in memory together.
        let prepared = await pMap(files, (f) => prepareFile(f), { concurrency: PREPARE_CONCURRENCY });
        if (source.configuration?.records === true) {
          prepared = (await pMap(prepared, (x) => splitIntoRecords(x, recordTemps), { concurrency: 1 })).flat();
        }
        const seen = new Map<string, number>();
        prepared.forEach((x, i) => seen.set(x.doc.source, i));
        // Two files with the same name in one batch: the later one wins, as a re-upload would.
        // Only one row per name can exist in a source, so the earlier ones are dropped here.
        for (let i = prepared.length - 1; i >= 0; i--) if (seen.get(prepared[i].doc.source) !== i) prepared.splice(i, 1);
        const usable = prepared.filter((x) => !x.failure);
        if (usable.length === 0) {
          const allEmpty = prepared.every((x) => x.doc.size_bytes === 0);
          if (allEmpty) {
            throw new ValidationError(
              prepared.map((x, i) => ({ type: "value_error", loc: ["body", "files", i], msg: x.failure!, input: x.doc.source })),
            );
          }
          throw new ServiceError("unsupported_media_type", prepared.map((x) => x.failure).join(" "));
        }
        let rows: DocumentRow[];
        try {
          rows = await acceptDocuments(
            { content, files: deps.files },
            tenant.id,
            sourceId,
            prepared.map((x) => ({ doc: x.doc, tempPath: x.failure ? null : x.tempPath })),
            limitsOf(tenant.plan).documents,
          );
        } catch (err) {
          if (err instanceof LimitReached) throw quotaExceededError("documents", tenant.plan, err.used, err.limit, err.adding);
          throw err;
        }
        // rows are committed (queued) with their bytes in place; failures end at once, the rest is queued
        for (let i = 0; i < rows.length; i++) {
          const x = prepared[i];
          if (x.failure) {
            await content.setDocumentStatus(tenant.id, rows[i].id, "failed", x.failure);
            // a refused re-upload replaces the earlier version: its bytes are not kept either
            await deps.files.remove(tenant.id, rows[i].id);
            rows[i] = { ...rows[i], status: "failed", error: x.failure, chunk_count: 0 };
          } else {
            await queueIngest(tenant.id, rows[i].id);
          }
        }
        return rows.map(documentOut);
      } finally {
        await Promise.all([...files.map((f) => f.tempPath), ...recordTemps].map((t) => fsp.rm(t, { force: true })));
      }
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
