// Documents: listing, reading chunks, deleting, and accepting uploads. Uploads are validated as
// a batch before anything is stored: the route has already streamed each file to a temp file
// (enforcing the upload limit while streaming); here types are sniffed from the bytes, then the
// batch is accepted atomically (services/acceptance.ts: bytes staged, rows committed with the
// document quota checked, bytes placed) and only then are the ingest jobs queued. The jobs are not
// part of the rows' transaction: a process that dies between the commit and the enqueue leaves
// queued documents without a job, and ingest recovery (runtime.ts ingestRecovery) queues them at
// the next start.//
// The operations are named functions taking their dependencies: document-reads.ts (list, get,
// chunks, reindex, remove), document-uploads.ts (uploads), document-model.ts (shared shapes).
// createDocumentService binds them to one set of dependencies for the runtime.
import type { DocumentStatus } from "../../store/content-types.js";
import type { Principal } from "../auth/auth.js";
import type { DocumentServiceDeps, UploadedFile } from "./document-types.js";
import { chunksAround, documentChunks, getDocument, listDocumentPage, reindexDocuments, removeDocument, type DocumentFilter } from "./document-reads.js";
import { uploadDocuments } from "./document-uploads.js";

export { chunkId, chunkOut, documentOut, type DocumentOut, type DocumentServiceDeps, type UploadedFile } from "./document-types.js";

export function createDocumentService(deps: DocumentServiceDeps) {
  /** newest first, `limit` (200) at a time; `next` is the cursor of the following page, if any */
  const listPage = (p: Principal, f: DocumentFilter) => listDocumentPage(deps, p, f);
  return {
    /** the first page only (the contract's plain list) */
    list: async (p: Principal, f: { collection_id?: string; data_source_id?: string; status?: DocumentStatus; limit?: number }) => (await listPage(p, f)).items,
    listPage,
    get: (p: Principal, id: string) => getDocument(deps, p, id),
    chunks: (p: Principal, id: string, limit: number) => documentChunks(deps, p, id, limit),
    /** The chunk at `position` with up to `window` neighbours each side: how an agent follows a citation. */
    chunksAround: (p: Principal, id: string, position: number, window: number) => chunksAround(deps, p, id, position, window),
    /** Re-parses, re-chunks and re-embeds stored content with the current profile. */
    reindex: (p: Principal, sourceId?: string) => reindexDocuments(deps, p, sourceId),
    remove: (p: Principal, id: string) => removeDocument(deps, p, id),
    /** Accepts a batch; unusable files become `failed` documents unless none is usable (then 415/422). */
    upload: (p: Principal, sourceId: string, files: UploadedFile[]) => uploadDocuments(deps, p, sourceId, files),
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
