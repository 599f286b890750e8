// The ingest service's contracts, apart from ingest.ts so that the modules of its operations
// (ingest-index.ts, ingest-job.ts) and ingest.ts, which binds them, do not import each other.
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { FreshnessStore } from "../../store/freshness-types.js";
import type { DocumentCatalog, IndexWrites, SourceCatalog, VectorStore } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import type { Embedder, EmbeddingProfile } from "../../embed/types.js";
import type { ChunkDraft, ParsedDocument } from "../../ingest/types.js";
import type { PassageModels } from "./passage-models.js";

export interface IngestDeps {
  store: { content: DocumentCatalog & SourceCatalog & IndexWrites & VectorStore; freshness?: Pick<FreshnessStore, "textHash" | "setTextHash" | "keepIndexed"> };
  files: FileStore;
  profile: EmbeddingProfile;
  embedder: Embedder | null;
  log: Logger;
  /** a source's whole-model adaptation, when it has one (passage-models.ts); absent: the base model for every chunk */
  passageModels?: PassageModels;
}

/** One already-parsed document for indexParsedBatch (its row exists, e.g. status queued). */
export interface ParsedItem {
  documentId: string;
  /** the document's data source, where the caller knows it: its whole-model adaptation embeds the chunks (default: the base model) */
  sourceId?: string;
  parsed: ParsedDocument;
  /** document metadata to store (replaces the row's metadata); default parsed.metadata */
  metadata?: Record<string, unknown>;
  /** chunks made already (in the parse worker); default: chunk `parsed` here */
  drafts?: ChunkDraft[];
}

export interface IndexBatchResult {
  /** documents indexed (the others had no text and are now failed) */
  documents: number;
  chunks: number;
  /** false when the chunks were stored without vectors (model not ready, or embed=false) */
  embedded: boolean;
}
