// The rows and shapes of the content layer: collections, data sources, documents, chunks with their
// lexical and vector index entries, and the durable job queue. The contract over them is
// content-store.ts; see types.ts for the conventions.
import type { ExpansionRule } from "../search/lexical/types.js";

export type Json = Record<string, unknown>;

export interface CollectionRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  settings: Json;
  created_at: string;
  /** ISO 639-1 code or "auto" (search/lexical/languages.ts); null or absent: English, the default */
  language?: string | null;
}

export interface CollectionView extends CollectionRow {
  data_source_ids: string[];
  document_count: number;
  indexed_count: number;
  data_source_count: number;
}

export interface SourceRow {
  id: string;
  tenant_id: string;
  name: string;
  source_type: "upload" | "website" | "git";
  configuration: Json;
  error: string | null;
  last_synced_at: string | null;
  created_at: string;
}

export interface SourceView extends SourceRow {
  collection_ids: string[];
  document_count: number;
  indexed_count: number;
  failed_count: number;
  /** documents queued or processing */
  pending_count: number;
  /** chunks of the source still waiting for a vector in the active index */
  chunks_pending_vectors: number;
}

export type DocumentStatus = "queued" | "processing" | "indexed" | "failed";

export interface DocumentRow {
  id: string;
  tenant_id: string;
  data_source_id: string;
  title: string;
  source_type: string;
  source: string;
  status: DocumentStatus;
  error: string | null;
  kind: string | null;
  content_type: string | null;
  size_bytes: number | null;
  content_hash: string | null;
  metadata: Json;
  chunk_count: number;
  /** chunks of the document still waiting for a vector in the active index */
  chunks_pending_vectors: number;
  created_at: string;
  updated_at: string;
}

export interface ChunkRow {
  /** opaque: each store chooses its form (the SQLite store uses its rowid in decimal) */
  id: string;
  tenant_id: string;
  document_id: string;
  data_source_id: string;
  position: number;
  heading_path: string[];
  text: string;
  token_count: number;
  metadata: Json;
  embedded_in: string | null;
}

/** A chunk joined with what search answers need from its document. */
export interface ChunkHit extends ChunkRow {
  title: string;
  source: string;
  document_metadata: Json;
}

/** Positions fromPosition..toPosition (inclusive) of one document. */
export interface ChunkRange {
  documentId: string;
  fromPosition: number;
  toPosition: number;
}

export interface NewChunk {
  position: number;
  text: string;
  heading_path: string[];
  token_count: number;
  metadata: Json;
}

/** A job as the embedded queue stores it. Ids are opaque strings (each backend makes its own). */
export interface JobRow {
  id: string;
  tenant_id: string;
  kind: string;
  subject: string;
  payload: Json;
  status: "queued" | "running" | "failed";
  attempts: number;
  max_attempts: number;
  run_after: string;
  last_error: string | null;
  /** the worker holding a running job (null otherwise) */
  owner: string | null;
}

export interface NewJob {
  tenant_id: string;
  kind: string;
  subject: string;
  payload?: Json;
  max_attempts?: number;
  /**
   * Skip when a job of the same kind and subject is queued or running (recovery). Without it a
   * job is skipped only when one is still queued: a running one may be working on a stale version.
   */
  unlessLive?: boolean;
  /** run no earlier than this many ms from now */
  delayMs?: number;
}

/** How a worker claims a job (see JobTable in content-store.ts). */
export interface JobClaim {
  /** worker id recorded as the job's owner */
  owner: string;
  /** the claim holds until then unless renewed; after it the job may be taken over */
  leaseUntil: Date;
  /** take only a job of this tenant */
  tenantId?: string;
  /** ...and only while the tenant runs fewer than this many jobs of these kinds */
  tenantCap?: number;
}

/** Ready and running jobs of one tenant, for fair scheduling. */
export interface TenantJobLoad {
  tenant_id: string;
  /** ready jobs; at least 1 (a backend may stop counting at 1) */
  ready: number;
  running: number;
  /** id of its oldest ready job: ties go to the tenant that has waited longest */
  first_ready: string;
}

/** Thrown inside a store transaction when adding would pass a plan limit; nothing is written. */
export class LimitReached extends Error {
  constructor(
    public readonly what: "sources" | "documents",
    public readonly used: number,
    public readonly limit: number,
    public readonly adding: number,
  ) {
    super(`${what} limit reached`);
  }
}

export interface CollectionPatch {
  name?: string;
  description?: string;
  settings?: Json;
  data_source_ids?: string[];
  language?: string;
}

/** a collection's language as its scope and the source-language check read it (null: English) */
export interface CollectionLanguage {
  collection_id: string;
  data_source_id: string;
  language: string | null;
}

export interface IncomingDocument {
  /** id to use when the document is new */
  id: string;
  source: string;
  title: string;
  source_type: string;
  kind: string | null;
  content_type: string | null;
  size_bytes: number;
  content_hash: string;
  metadata: Json;
}

export interface Scored {
  chunkId: string;
  score: number;
  /** lexical hits: the query-time rules whose added terms the chunk matched (absent: none) */
  rules?: ExpansionRule[];
}

export interface VectorIndexStatus {
  /** e.g. "hnsw (usearch, M 16, ef 256, f16)" or "exact (sqlite-vec)" */
  kind: string;
  /** graphs (one per tenant and data source) */
  partitions: number;
  /** vectors in ready graphs */
  vectors: number;
  /** graphs being (re)built; their sources are searched exactly meanwhile */
  building: number;
  /** vector changes not yet applied to the graphs */
  behind: number;
}
