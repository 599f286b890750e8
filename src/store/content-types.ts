// Storage contract of the content layer: collections, data sources, documents, chunks with their
// lexical and vector index entries, and the durable job queue. See types.ts for the conventions.

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
  id: number;
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

export interface NewChunk {
  position: number;
  text: string;
  heading_path: string[];
  token_count: number;
  metadata: Json;
}

export interface JobRow {
  id: number;
  tenant_id: string;
  kind: string;
  subject: string;
  payload: Json;
  status: "queued" | "running" | "failed";
  attempts: number;
  max_attempts: number;
  run_after: string;
  last_error: string | null;
}

export interface NewJob {
  tenant_id: string;
  kind: string;
  subject: string;
  payload?: Json;
  max_attempts?: number;
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

export interface LexicalWeights {
  title: number;
  headings: number;
  body: number;
}

export interface Scored {
  chunkId: number;
  score: number;
}

export interface VectorIndexStatus {
  /** e.g. "hnsw (usearch, M 16, f16)" or "exact (sqlite-vec)" */
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
   * jobs once the files are in place; requeueOrphans() covers a crash in between.
   */
  upsertDocuments(tenantId: string, sourceId: string, docs: IncomingDocument[], limit: number | null): Promise<DocumentRow[]>;
  listDocuments(tenantId: string, filter: { collectionId?: string; sourceId?: string; limit: number }): Promise<DocumentRow[]>;
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
  storeEmbeddings(indexName: string, items: { chunkId: number; vector: Float32Array }[]): Promise<void>;
  countUnembedded(indexName: string, tenantId?: string): Promise<number>;
  /** the approximate index behind vectorSearch, for /health (a store without one reports "exact") */
  vectorIndexStatus(indexName: string): Promise<VectorIndexStatus>;

  // search
  lexicalSearch(tenantId: string, sourceIds: string[], match: string, limit: number, weights: LexicalWeights): Promise<Scored[]>;
  vectorSearch(indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Promise<Scored[]>;
  hydrateChunks(tenantId: string, chunkIds: number[]): Promise<Map<number, ChunkHit>>;
  chunksAt(tenantId: string, documentId: string, positions: number[]): Promise<ChunkHit[]>;

  // jobs
  enqueueJob(job: NewJob): Promise<void>;
  claimJob(kinds: string[], now: Date): Promise<JobRow | null>;
  completeJob(id: number): Promise<void>;
  failJob(id: number, error: string, retryAt: Date | null): Promise<void>;
  /** jobs left running by a process that died go back to the queue */
  requeueRunningJobs(kinds: string[]): Promise<number>;
  /** queues an ingest job for every queued/processing document that has no live job */
  requeueOrphans(): Promise<number>;
  pendingJobCount(): Promise<number>;

  /** removes every chunk index entry of a tenant (before the tenant row cascades) */
  purgeTenantIndex(tenantId: string): Promise<void>;
}
