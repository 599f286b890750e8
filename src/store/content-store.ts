// The storage contract of the content layer, in the groups its callers use: a service depends on
// the groups it calls (the search engine on ChunkSearch, the embedded queue on JobTable, ...), a
// backend implements them all (ContentStore). Every method takes the tenant id where it touches a
// tenant's data and filters by it in the query itself; see types.ts for the conventions.
import type {
  ChunkHit,
  ChunkRange,
  ChunkRow,
  CollectionLanguage,
  CollectionPatch,
  CollectionRow,
  CollectionView,
  DocumentRow,
  DocumentStatus,
  IncomingDocument,
  JobClaim,
  JobRow,
  Json,
  NewChunk,
  NewJob,
  Scored,
  SourceRow,
  SourceView,
  TenantJobLoad,
  VectorIndexStatus,
} from "./content-types.js";
import type { LexicalQuery, LexicalWeights, TermAnswer, TermLookup } from "../search/lexical/types.js";
import type { FilterField, SearchFilter } from "../search/filter/types.js";
import type { FacetValue } from "../search/filter/facets.js";

/** Collections: named sets of a tenant's data sources, with their search settings. */
export interface CollectionCatalog {
  createCollection(row: CollectionRow, sourceIds: string[]): Promise<void>;
  listCollections(tenantId: string): Promise<CollectionView[]>;
  getCollection(tenantId: string, id: string): Promise<CollectionView | null>;
  /** what a query needs of a collection (no counts: those scan the documents) */
  collectionScope(tenantId: string, id: string): Promise<{ settings: Json; data_source_ids: string[]; language: string | null } | null>;
  /** the languages of the collections that hold these data sources, one row per (collection, source) */
  sourceLanguages(tenantId: string, sourceIds: string[]): Promise<CollectionLanguage[]>;
  updateCollection(tenantId: string, id: string, patch: CollectionPatch): Promise<boolean>;
  deleteCollection(tenantId: string, id: string): Promise<boolean>;
  attachSource(tenantId: string, collectionId: string, sourceId: string): Promise<void>;
  detachSource(tenantId: string, collectionId: string, sourceId: string): Promise<boolean>;
  /** which of these ids are data sources of the tenant */
  existingSourceIds(tenantId: string, ids: string[]): Promise<string[]>;
  existingCollectionIds(tenantId: string, ids: string[]): Promise<string[]>;
}

/** Data sources: where a tenant's documents come from (uploads, websites). */
export interface SourceCatalog {
  /** LimitReached when the tenant would hold more than `limit` sources */
  createSource(row: SourceRow, collectionIds: string[], limit: number | null): Promise<void>;
  listSources(tenantId: string, collectionId?: string): Promise<SourceView[]>;
  getSource(tenantId: string, id: string): Promise<SourceView | null>;
  updateSource(tenantId: string, id: string, patch: { configuration?: Json; error?: string | null; last_synced_at?: string }): Promise<void>;
  /** removes the source, its documents, chunks and index entries; returns the removed document ids */
  deleteSource(tenantId: string, id: string): Promise<string[] | null>;
}

/** Documents: their rows and status, and the chunks they were cut into. */
export interface DocumentCatalog {
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
  /** document ids of a tenant (or one source) for reindexing */
  documentIds(tenantId: string, sourceId?: string): Promise<string[]>;
  /** the chunks of these sources' indexed documents (their stored chunk counts, summed) */
  chunkCount(tenantId: string, sourceIds: string[]): Promise<number>;
  /**
   * Documents still queued or processing and not touched since `updatedBefore`: the ingest
   * wiring's recovery makes sure each has a live job (a crash between commit and enqueue).
   */
  documentsAwaitingIngest(updatedBefore: Date, limit: number): Promise<{ tenant_id: string; id: string }[]>;
}

/** Index writes: a document's chunks with their lexical entries (and vectors) as one unit. */
export interface IndexWrites {
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
  /**
   * replaceDocumentIndex for several documents of one tenant in one transaction: an ingest batch's
   * chunks, lexical entries and vectors written together (one round of statements and triggers
   * for the batch instead of one per document). A document deleted meanwhile is skipped.
   */
  replaceDocumentsIndex(tenantId: string, items: DocumentIndex[]): Promise<void>;
}

/** One document's new index, as replaceDocumentsIndex takes it. */
export interface DocumentIndex {
  documentId: string;
  doc: { title: string; metadata: Json };
  chunks: NewChunk[];
  vectors: { indexName: string; values: Float32Array[] } | null;
}

/** Vectors: one index per embedding profile, and the backfill of chunks still without a vector. */
export interface VectorStore {
  ensureVectorIndex(indexName: string, dimension: number): Promise<void>;
  unembeddedChunks(indexName: string, limit: number, tenantId?: string): Promise<ChunkRow[]>;
  storeEmbeddings(indexName: string, items: { chunkId: string; vector: Float32Array }[]): Promise<void>;
  countUnembedded(indexName: string, tenantId?: string): Promise<number>;
  /**
   * Marks the chunks of these sources as without a vector, so the backfill embeds them again: with
   * the model their source has now (a collection's whole-model adaptation applied or reverted).
   * Until their new vectors are stored, vector search may miss them (an approximate index drops
   * them; lexical search is unaffected). Returns how many.
   */
  resetEmbeddings(tenantId: string, sourceIds: string[]): Promise<number>;
  /**
   * The index the embedded chunks' vectors are in, null when no chunk has one (the profile chosen
   * at start, embed/choose-profile.ts). One index at a time: ensureVectorIndex marks chunks
   * embedded for another as unembedded. Reads up to the first embedded chunk, not a count.
   */
  embeddedIndex(): Promise<string | null>;
  /** the approximate index behind vectorSearch, for /health (a store without one reports "exact") */
  vectorIndexStatus(indexName: string): Promise<VectorIndexStatus>;
}

/** Search: the two retrievers, and the chunks their hits name. */
export interface ChunkSearch {
  /**
   * BM25 over the tenant's chunks in these sources, best first (search/lexical/bm25.ts). The query
   * comes analysed (search/lexical/analyze-query.ts) with the analyzer the store indexes with;
   * statistics (N, average length, document frequencies) are the tenant's live chunks only, so
   * other tenants' writes never change the scores. With a filter, only chunks of documents that
   * pass it are candidates, inside the scan: the top `limit` of the filtered set, never a filtered
   * top `limit`; statistics stay the tenant's (a filter narrows, it does not rescore).
   */
  lexicalSearch(tenantId: string, sourceIds: string[], query: LexicalQuery, limit: number, weights: LexicalWeights, filter?: SearchFilter): Promise<Scored[]>;
  /**
   * The tenant's term dictionary, as query expansion reads it (typo tolerance, prefix search;
   * search/lexical/expand.ts): the live chunk count, the df of the asked terms and bands of terms
   * by prefix, from the same statistics lexicalSearch scores with.
   */
  lexicalTerms(tenantId: string, lookup: TermLookup): Promise<TermAnswer>;
  /** The k nearest of these sources' chunks (and of documents passing the filter, as lexicalSearch). */
  vectorSearch(indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number, filter?: SearchFilter): Promise<Scored[]>;
  /**
   * Facet counts over the matched documents: the tenant's documents in these sources that pass the
   * filter and have a chunk matching any term of `query` (all of them, not a ranked top), plus
   * those named in `documentIds`. Per field (in order), its string, number and boolean values with
   * how many of those documents hold each, the `cap` most frequent (ties by value).
   */
  facetCounts(
    tenantId: string,
    sourceIds: string[],
    matched: { query: LexicalQuery | null; documentIds: string[]; filter?: SearchFilter },
    fields: FilterField[],
    cap: number,
  ): Promise<FacetValue[][]>;
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
  /**
   * Loads what the store keeps in memory for search (the embedded store's per-tenant BM25
   * indexes) ahead of the first query, in the background; resolves with the tenants it loaded.
   * Stores with nothing to load leave it out.
   */
  warmUp?(): Promise<number>;
}

/**
 * The job table: the storage of the embedded queue (jobs/embedded-queue.ts). Services never call
 * these; they enqueue and cancel through the JobQueue.
 */
export interface JobTable {
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
}

/** All of it: what a backend implements and the composition root holds (Store.content). */
export interface ContentStore extends CollectionCatalog, SourceCatalog, DocumentCatalog, IndexWrites, VectorStore, ChunkSearch, JobTable {}
