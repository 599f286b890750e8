// Document and chunk rows as SQLite returns them, and their shapes outside (JSON columns parsed,
// chunk ids as strings). Shared by the document, indexing and search modules.
import type { ChunkRow, DocumentRow } from "../../content-types.js";
import { parseJson } from "./json.js";

export type RawDoc = Omit<DocumentRow, "metadata"> & { metadata: string };
export type RawChunk = Omit<ChunkRow, "id" | "heading_path" | "metadata"> & { id: number; heading_path: string; metadata: string };

export const toDoc = (r: RawDoc): DocumentRow => ({ ...r, metadata: parseJson(r.metadata, {}) });
export const toChunk = (r: RawChunk): ChunkRow => ({
  ...r,
  id: String(r.id),
  heading_path: parseJson<string[]>(r.heading_path, []),
  metadata: parseJson(r.metadata, {}),
});

/** a document row with how many of its chunks still wait for a vector (partial index on chunks) */
export const DOC = `SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id AND c.embedded_in IS NULL) AS chunks_pending_vectors
  FROM documents d`;
