// Storage contract of the content layer: collections, data sources, documents, chunks with their
// lexical and vector index entries, and the durable job queue. See types.ts for the conventions.
import type { LexicalQuery, LexicalWeights } from "../search/lexical/types.js";

export type Json = Record<string, unknown>;

export interface CollectionRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  settings: Json;
  created_at: string;
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
  source_type: "upload" | "website";
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

/** How a worker claims a job (see the jobs section of ContentStore). */
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

export interface ContentStore {
  // collections
  createCollection(row: CollectionRow, sourceIds: string[]): Promise<void>;
  listCollections(tenantId: string): Promise<CollectionView[]>;
  getCollection(tenantId: string, id: string): Promise<CollectionView | null>;
  /** what a query needs of a collection (no counts: those scan the documents) */
  collectionScope(tenantId: string, id: string): Promise<{ settings: Json; data_source_ids: string[] } | null>;
  updateCollection(tenantId: string, id: string, patch: CollectionPatch): Promise<boolean>;
  deleteCollection(tenantId: string, id: string): Promise<boolean>;
  attachSource(tenantId: string, collectionId: string, sourceId: string): Promise<void>;
  detachSource(tenantId: string, collectionId: string, sourceId: string): Promise<boolean>;
  /** which of these ids are data sources of the tenant */
  existingSourceIds(tenantId: string, ids: string[]): Promise<string[]>;
  existingCollectionIds(tenantId: string, ids: string[]): Promise<string[]>;

  // data sources
  /** LimitReached when the tenant would hold more than `limit` sources */
  createSource(row: SourceRow, collectionIds: string[], limit: number | null): Promise<void>;
  listSources(tenantId: string, collectionId?: string): Promise<SourceView[]>;
  getSource(tenantId: string, id: string): Promise<SourceView | null>;
  updateSource(tenantId: string, id: string, patch: { configuration?: Json; error?: string | null; last_synced_at?: string }): Promise<void>;
  /** removes the source, its documents, chunks and index entries; returns the removed document ids */
  deleteSource(tenantId: string, id: string): Promise<string[] | null>;

  // documents
  /**
   * Inserts new documents or replaces same-named ones in the source (status queued), in one
   * transaction. LimitReached when new documents would pass `limit`. The caller queues the ingest
   * jobs once the files are in place; documentsAwaitingIngest() lets recovery cover a crash in between.
   */
  upsertDocuments(tenantId: string, sourceId: string, docs: IncomingDocument[], limit: number | null): Promise<DocumentRow[]>;
  /** newest first; `before` continues after that (created_at, id), for keyset paging */
  listDocuments(
    tenantId: string,
    filter: { collectionId?: string; sourceId?: string; status?: DocumentStatus; before?: { created_at: string; id: string }; limit: number },
  ): Promise<DocumentRow[]>;
  getDocument(tenantId: string, id: string): Promise<DocumentRow | null>;
  findDocumentBySource(tenantId: string, sourceId: string, source: string): Promise<DocumentRow | null>;
  deleteDocument(tenantId: string, id: string): Promise<boolean>;
  setDocumentStatus(tenantId: string, id: string, status: DocumentStatus, error?: string | null): Promise<void>;
  listChunks(tenantId: string, documentId: string, limit: number): Promise<{ total: number; chunks: ChunkRow[] }>;
  /**
   * Replaces every chunk of the document (rows, lexical entries, vectors) and marks it indexed, in
   * one transaction. `vectors` is null when no model is available: chunks stay unembedded.
   */
  replaceDocumentIndex(
    tenantId: string,
    documentId: string,
    doc: { title: string; metadata: Json },
    chunks: NewChunk[],
    vectors: { indexName: string; values: Float32Array[] } | null,
  ): Promise<void>;
  /** document ids of a tenant (or one source) for reindexing */
  documentIds(tenantId: string, sourceId?: string): Promise<string[]>;

  // vectors
  ensureVectorIndex(indexName: string, dimension: number): Promise<void>;
  unembeddedChunks(indexName: string, limit: number, tenantId?: string): Promise<ChunkRow[]>;
  storeEmbeddings(indexName: string, items: { chunkId: string; vector: Float32Array }[]): Promise<void>;
  countUnembedded(indexName: string, tenantId?: string): Promise<number>;
  /** the approximate index behind vectorSearch, for /health (a store without one reports "exact") */
  vectorIndexStatus(indexName: string): Promise<VectorIndexStatus>;
  /**
   * Loads what the store keeps in memory for search (the embedded store's per-tenant BM25
   * indexes) ahead of the first query, in the background; resolves with the tenants it loaded.
   * Stores with nothing to load leave it out.
   */
  warmUp?(): Promise<number>;

  // search
  /**
   * BM25 over the tenant's chunks in these sources, best first (search/lexical/bm25.ts). The query
   * comes analysed (search/lexical/analyze-query.ts) with the analyzer the store indexes with;
   * statistics (N, average length, document frequencies) are the tenant's live chunks only, so
   * other tenants' writes never change the scores.
   */
  lexicalSearch(tenantId: string, sourceIds: string[], query: LexicalQuery, limit: number, weights: LexicalWeights): Promise<Scored[]>;
  vectorSearch(indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Promise<Scored[]>;
  hydrateChunks(tenantId: string, chunkIds: string[]): Promise<Map<string, ChunkHit>>;
  /**
   * The document of each of these chunks of the tenant (missing or foreign ids left out): what
   * ranking needs to collapse hits by document before it reads the few chunks it returns in full.
   */
  chunkDocuments(tenantId: string, chunkIds: string[]): Promise<Map<string, string>>;
  /**
   * The tenant's chunks inside any of these position ranges (bounds inclusive), each chunk once,
   * ordered by document then position: all the neighbours /retrieve adds in one query, and the
   * chunks around a cited position (documents.chunksAround).
   */
  chunksInRanges(tenantId: string, ranges: readonly ChunkRange[]): Promise<ChunkHit[]>;

  // jobs: the storage of the embedded queue (jobs/embedded-queue.ts). Services never call these;
  // they enqueue and cancel through the JobQueue.
  /** Queues a job (see NewJob.unlessLive); returns its id, or null when an existing job covers it. */
  enqueueJob(job: NewJob): Promise<string | null>;
  /** tenants with ready jobs (queued, run_after <= now) of these kinds, with their running counts */
  jobTenantLoads(kinds: string[], now: Date): Promise<TenantJobLoad[]>;
  /**
   * Atomically takes the oldest ready job of these kinds (optionally of one tenant, under its cap)
   * whose subject has no running job, marks it running for `claim.owner` and counts the attempt.
   */
  claimJob(kinds: string[], now: Date, claim: JobClaim): Promise<JobRow | null>;
  /** extends the leases of the owner's running jobs; returns the ids of those asked to cancel */
  renewJobLeases(owner: string, leaseUntil: Date): Promise<string[]>;
  /** removes the job if `owner` still holds it (false: it was taken over or cancelled) */
  completeJob(id: string, owner: string): Promise<boolean>;
  /** back to queued at retryAt, or failed for good (retryAt null), if `owner` still holds it */
  failJob(id: string, owner: string, error: string, retryAt: Date | null): Promise<boolean>;
  /**
   * Running jobs of these kinds whose lease ran out, or whose owner is in `deadOwners`, or that
   * have no owner, go back to queued (the attempt stays counted). Returns how many.
   */
  requeueStalledJobs(kinds: string[], now: Date, deadOwners: string[]): Promise<number>;
  /** owners of running jobs of these kinds */
  jobOwners(kinds: string[]): Promise<string[]>;
  /** removes queued jobs of the subject and flags running ones for cancel; returns how many */
  cancelJobs(kind: string, subject: string): Promise<number>;
  /** queued and running jobs of these kinds (all kinds when omitted) */
  pendingJobCount(kinds?: string[]): Promise<number>;
  /**
   * Documents still queued or processing and not touched since `updatedBefore`: the ingest
   * wiring's recovery makes sure each has a live job (a crash between commit and enqueue).
   */
  documentsAwaitingIngest(updatedBefore: Date, limit: number): Promise<{ tenant_id: string; id: string }[]>;

}

/** The job-table part of the content store: what a database-backed queue runs on. */
export type JobStoreMethods = Pick<
  ContentStore,
  | "enqueueJob"
  | "jobTenantLoads"
  | "claimJob"
  | "renewJobLeases"
  | "completeJob"
  | "failJob"
  | "requeueStalledJobs"
  | "jobOwners"
  | "cancelJobs"
  | "pendingJobCount"
>;

/** The data-sources part of the content store. */
export type SourceMethods = Pick<ContentStore, "createSource" | "listSources" | "getSource" | "updateSource" | "deleteSource">;

/** The collections part of the content store (each backend implements it in one module). */
export type CollectionMethods = Pick<
  ContentStore,
  | "createCollection"
  | "listCollections"
  | "getCollection"
  | "collectionScope"
  | "updateCollection"
  | "deleteCollection"
  | "attachSource"
  | "detachSource"
  | "existingSourceIds"
  | "existingCollectionIds"
>;

/** The documents-and-chunks part of the content store. */
export type DocumentMethods = Pick<
  ContentStore,
  | "upsertDocuments"
  | "listDocuments"
  | "getDocument"
  | "findDocumentBySource"
  | "deleteDocument"
  | "setDocumentStatus"
  | "listChunks"
  | "replaceDocumentIndex"
  | "documentIds"
>;
