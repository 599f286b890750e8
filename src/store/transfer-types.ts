// Bulk transfer of a whole deployment between stores (quarry migrate-data): every entity as a
// stream of canonical rows, read in key order from one store and written to another. Canonical
// rows carry plain values whatever the backend stores: JSON columns parsed, booleans as booleans,
// timestamps as ISO-8601 text, and chunks keyed by (document_id, position) instead of their
// store-specific ids, with their stored vector attached.
import type { ChunkRow } from "./content-types.js";

/** Entities in copy order: every row's parents come earlier, so foreign keys hold at each commit. */
export const TRANSFER_ENTITIES = [
  "tenants",
  "users",
  "api_keys",
  "sessions",
  "account_tokens",
  "usage_counters",
  "data_sources",
  "collections",
  "collection_sources",
  "documents",
  "chunks",
  "crawl_jobs",
  "crawl_pages",
  "crawl_failures",
  "benchmark_suites",
  "benchmark_cases",
  "benchmark_runs",
  "audit_log",
] as const;

export type TransferEntity = (typeof TRANSFER_ENTITIES)[number];

/** A canonical row: column name to plain value (see the file comment). */
export type TransferRow = Record<string, unknown>;

/** The key of the last row of a batch, in the entity's key order; a read continues after it. */
export type TransferCursor = (string | number)[];

/** The columns that order and identify each entity's rows (the keyset of its cursor). */
export const TRANSFER_KEYS: Record<TransferEntity, string[]> = {
  tenants: ["id"],
  users: ["id"],
  api_keys: ["id"],
  sessions: ["id"],
  account_tokens: ["id"],
  usage_counters: ["tenant_id", "period"],
  data_sources: ["id"],
  collections: ["id"],
  collection_sources: ["collection_id", "data_source_id"],
  documents: ["id"],
  // whole documents at a time: a writer replaces a document's chunks in one go (see TransferSource)
  chunks: ["document_id"],
  crawl_jobs: ["id"],
  crawl_pages: ["data_source_id", "url"],
  crawl_failures: ["job_id", "url"],
  benchmark_suites: ["id"],
  benchmark_cases: ["id"],
  benchmark_runs: ["id"],
  audit_log: ["tenant_id", "id"],
};

/**
 * A canonical chunk. `vector` is the stored embedding in the index `embedded_in` (null when the
 * chunk was never embedded); it is copied as is, never recomputed.
 */
export interface TransferChunk extends Omit<ChunkRow, "id"> {
  vector: Float32Array | null;
}

export interface TransferBatch {
  rows: TransferRow[];
  /** key of the last row (pass it back as `after`); null when the batch is empty */
  last: TransferCursor | null;
}

/** The reading side: a store's rows, entity by entity, in key order. */
export interface TransferSource {
  /**
   * Up to `limit` rows after `after`, in key order. For chunks, `limit` counts documents: a batch
   * holds every chunk of each of its documents, in position order.
   */
  readBatch(entity: TransferEntity, after: TransferCursor | null, limit: number): Promise<TransferBatch>;
  count(entity: TransferEntity): Promise<number>;
  /** chunks that have a stored vector */
  countVectors(): Promise<number>;
  close(): Promise<void>;
}

/** How far a previous run got with an entity. */
export interface TransferProgress {
  cursor: TransferCursor | null;
  done: boolean;
}

/** The writing side. Writes are idempotent: rows already present are left as they are. */
export interface TransferTarget {
  /**
   * Prepares the target for a run from `origin` (a description of the source, recorded). Throws
   * when the target holds data that no run from `origin` wrote (another deployment).
   */
  begin(origin: string): Promise<Map<TransferEntity, TransferProgress>>;
  /** writes the rows and records `cursor` as the entity's progress, atomically */
  writeBatch(entity: TransferEntity, rows: TransferRow[], cursor: TransferCursor): Promise<void>;
  /** records that every row of the entity was written */
  finish(entity: TransferEntity): Promise<void>;
  count(entity: TransferEntity): Promise<number>;
  countVectors(): Promise<number>;
  close(): Promise<void>;
}
