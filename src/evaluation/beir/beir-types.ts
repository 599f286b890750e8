// The BEIR importer's contracts, apart from beir-import.ts so that its steps (beir-load.ts) and
// beir-import.ts, which runs them, do not import each other.
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { CollectionCatalog, DocumentCatalog, SourceCatalog } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import type { IngestService } from "../../services/ingest/ingest.js";
import type { CollectionService } from "../../services/collections/collections.js";
import type { SourceService } from "../../services/collections/sources.js";
import type { BenchmarkService } from "../benchmarks/benchmarks.js";

export interface BeirImportRequest {
  /** directory holding corpus.jsonl, queries.jsonl and qrels/<split>.tsv */
  dir: string;
  /** short name for labels (directory name by default) */
  dataset?: string;
  /** display name of the data set (SciFact) */
  title?: string;
  split?: string;
  /** load into this collection (a new data source is attached to it); default: a new collection */
  collectionId?: string | null;
  collectionName?: string | null;
  /** cases of the suite: the split's first queries in qrels order, at most 500 (the suite limit) */
  maxQueries?: number | null;
  /**
   * Smaller corpus for quick checks: the relevant documents of the chosen queries plus the first
   * other documents of the corpus, up to this many in all. Scores are then not comparable with
   * published ones (fewer distractors).
   */
  maxDocuments?: number | null;
  /** create the benchmark suite (default true) */
  createSuite?: boolean;
  topK?: number;
  /** false: index lexically only, without vectors (measurements; the backfill embeds later) */
  embed?: boolean;
  /** documents per indexing batch (default 64) */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (p: { indexed: number; total: number; chunks: number }) => void;
}

export interface BeirImportStarted {
  dataset: string;
  split: string;
  status: "indexing";
  collection_id: string;
  data_source_id: string;
  suite_id: string | null;
  documents: number;
  cases: number;
  /** queries of the split left out: over max_queries or the 500-case limit, no text, or no relevant document in the corpus */
  skipped_queries: number;
}

export interface BeirImportDone {
  documents: number;
  indexed: number;
  failed: number;
  chunks: number;
  /** false when any batch was stored without vectors */
  embedded: boolean;
  ms: number;
}

export interface BeirImport {
  started: BeirImportStarted;
  /** BEIR `_id` -> Quarry document id */
  idMap: Map<string, string>;
  /** BEIR query ids of the suite's cases, in case order */
  queryIds: string[];
  /** resolves when every document is indexed */
  done: Promise<BeirImportDone>;
}

export interface BeirImportDeps {
  store: Pick<Store, "usage"> & { content: CollectionCatalog & SourceCatalog & DocumentCatalog };
  files: FileStore;
  ingest: IngestService;
  collections: Pick<CollectionService, "create">;
  sources: Pick<SourceService, "create">;
  benchmarks: BenchmarkService;
  log: Logger;
  /** chunks were committed without vectors: ask the backfill to embed them */
  onUnembedded?: () => void;
}
