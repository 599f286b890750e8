// Row shapes of the PostgreSQL content tables and their conversion to the store interface's rows.
// JSON columns are text (as written), chunk and job ids bigint identities handed out as strings.
import type { ChunkHit, ChunkRow, DocumentRow, Json } from "../../content-types.js";

import { parseJson } from "../../json.js";

export { parseJson };

/** ids are opaque strings outside; one that is not a bigint of ours matches nothing */
export const bigintIds = (ids: string[]): string[] => ids.filter((id) => /^\d{1,18}$/.test(id));
export const bigintId = (id: string): string => (/^\d{1,18}$/.test(id) ? id : "-1");

export type RawDoc = Omit<DocumentRow, "metadata"> & { metadata: string };
export const toDoc = (r: RawDoc): DocumentRow => ({ ...r, metadata: parseJson<Json>(r.metadata, {}) });

export type RawChunk = Omit<ChunkRow, "id" | "heading_path" | "metadata"> & { id: number | string; heading_path: string; metadata: string };
export const toChunk = (r: RawChunk): ChunkRow => ({
  id: String(r.id),
  tenant_id: r.tenant_id,
  document_id: r.document_id,
  data_source_id: r.data_source_id,
  position: r.position,
  heading_path: parseJson<string[]>(r.heading_path, []),
  text: r.text,
  token_count: r.token_count,
  metadata: parseJson<Json>(r.metadata, {}),
  embedded_in: r.embedded_in,
});

export type RawHit = RawChunk & { title: string; source: string; document_metadata: string };
export const toHit = (r: RawHit): ChunkHit => ({
  ...toChunk(r),
  title: r.title,
  source: r.source,
  document_metadata: parseJson<Json>(r.document_metadata, {}),
});

/** the chunk columns the interface knows (not the lexical ones) */
export const CHUNK_COLS = "c.tenant_id, c.id, c.document_id, c.data_source_id, c.position, c.heading_path, c.text, c.token_count, c.metadata, c.embedded_in";

export const HIT = `SELECT ${CHUNK_COLS}, d.title AS title, d.source AS source, d.metadata AS document_metadata
  FROM chunks c JOIN documents d ON d.tenant_id = c.tenant_id AND d.id = c.document_id`;

/**
 * Serialises writers that count a tenant's rows against a limit (sources, documents, job caps) across
 * processes: a transaction-scoped advisory lock on (what, tenant). Hash collisions only serialise
 * two tenants' uploads a little more.
 */
export const LIMIT_LOCK = "SELECT pg_advisory_xact_lock($1::int, hashtext($2))";
export const LOCK_SOURCES = 50_001;
export const LOCK_DOCUMENTS = 50_002;
export const LOCK_CLAIMS = 50_004;
