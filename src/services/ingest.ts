// The ingest job: stored file -> parse (isolated) -> heading-aware chunks -> chunks and lexical
// entries written in one transaction (searchable at once); the backfill adds vectors afterwards.
// Parse errors end the document as `failed` with the parser's words; other errors are retried.
import type { Logger } from "pino";
import type { Store } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import type { QueuedJob as JobRow } from "../jobs/types.js";
import type { Embedder, EmbeddingProfile } from "../embed/types.js";
import type { FileKind, ParsedDocument } from "../ingest/types.js";
import { parseAndChunkIsolated } from "../ingest/parse/isolated.js";
import { isParseError } from "../ingest/parse/errors.js";
import { chunkDocument } from "../ingest/chunk.js";
import type { ChunkDraft } from "../ingest/types.js";
import { PermanentJobError } from "../jobs/embedded-queue.js";

export interface IngestDeps {
  store: Store;
  files: FileStore;
  profile: EmbeddingProfile;
  embedder: Embedder | null;
  log: Logger;
}

/** What the embedding model sees for a chunk: the document title anchors short chunks. */
export function passageText(title: string, headingPath: string[], text: string): string {
  const context = [title, ...headingPath].filter(Boolean).join(" › ");
  return context ? `${context}\n${text}` : text;
}

/** One already-parsed document for indexParsedBatch (its row exists, e.g. status queued). */
export interface ParsedItem {
  documentId: string;
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

export function createIngestService(deps: IngestDeps) {
  const content = deps.store.content;

  async function embedIfReady(texts: string[]): Promise<Float32Array[] | null> {
    const e = deps.embedder;
    if (!e || e.status().state !== "ready" || texts.length === 0) return null;
    try {
      return await e.embedPassages(texts);
    } catch (err) {
      // lexical indexing must not wait for the model: the backfill embeds these chunks later
      deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, "embedding failed; chunks stay unembedded for now");
      return null;
    }
  }

  /**
   * Indexes parsed documents of one tenant: heading-aware chunks, one embedding call for all
   * chunks of the batch (the embedder batches and spreads it over its workers), then each
   * document's chunks, lexical and vector entries in its own transaction. `embed: false` stores
   * chunks without vectors (lexical-only indexing; the backfill embeds them later).
   */
  async function indexParsedBatch(tenantId: string, items: ParsedItem[], opts: { embed?: boolean } = {}): Promise<IndexBatchResult> {
    const chunkOptions = { chunkSizeTokens: deps.profile.chunk_size_tokens, chunkOverlapTokens: deps.profile.chunk_overlap_tokens };
    const docs = items.map((it) => ({ it, drafts: it.drafts ?? chunkDocument(it.parsed, chunkOptions) }));
    const texts = docs.flatMap(({ it, drafts }) => drafts.map((c) => passageText(it.parsed.title, c.headingPath, c.text)));
    const vectors = opts.embed === false ? null : await embedIfReady(texts);
    const indexName = deps.profile.index_name!;
    let offset = 0;
    let documents = 0;
    for (const { it, drafts } of docs) {
      if (drafts.length === 0) {
        await content.setDocumentStatus(tenantId, it.documentId, "failed", "The file contains no text to index.");
        continue;
      }
      await content.replaceDocumentIndex(
        tenantId,
        it.documentId,
        { title: it.parsed.title, metadata: it.metadata ?? it.parsed.metadata },
        drafts.map((c) => ({ position: c.position, text: c.text, heading_path: c.headingPath, token_count: c.tokenCount, metadata: c.metadata })),
        vectors ? { indexName, values: vectors.slice(offset, offset + drafts.length) } : null,
      );
      offset += drafts.length;
      documents++;
    }
    return { documents, chunks: texts.length, embedded: vectors !== null };
  }

  /** A sync ends when the source has nothing queued or processing, however its last document ended. */
  async function markSyncedIfIdle(tenantId: string, sourceId: string): Promise<void> {
    const source = await content.getSource(tenantId, sourceId);
    if (source && source.pending_count === 0) {
      await content.updateSource(tenantId, sourceId, { last_synced_at: new Date().toISOString() });
    }
  }

  return {
    indexParsedBatch,

    /** indexParsedBatch for one document */
    indexParsed: (tenantId: string, documentId: string, parsed: ParsedDocument, metadata?: Record<string, unknown>) =>
      indexParsedBatch(tenantId, [{ documentId, parsed, metadata }]),

    async handle(job: JobRow): Promise<void> {
      const doc = await content.getDocument(job.tenant_id, job.subject);
      if (!doc) return; // deleted meanwhile
      if (!doc.kind) {
        await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", doc.error ?? "The file type could not be recognised.");
        return markSyncedIfIdle(doc.tenant_id, doc.data_source_id);
      }
      await content.setDocumentStatus(doc.tenant_id, doc.id, "processing");
      const bytes = await deps.files.read(doc.tenant_id, doc.id);
      if (!bytes) {
        await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", "The stored file is missing; upload the file again.");
        return markSyncedIfIdle(doc.tenant_id, doc.data_source_id);
      }
      let parsed;
      try {
        parsed = await parseAndChunkIsolated(bytes, doc.kind as FileKind, doc.source, {
          chunkSizeTokens: deps.profile.chunk_size_tokens,
          chunkOverlapTokens: deps.profile.chunk_overlap_tokens,
        });
      } catch (err) {
        if (isParseError(err)) {
          await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", err.message);
          return markSyncedIfIdle(doc.tenant_id, doc.data_source_id);
        }
        throw err;
      }
      // A crawled page keeps the title the crawler saw when the parser finds none better.
      const title = parsed.doc.title || doc.title;
      // Lexical first: the chunks are committed without vectors, so the document is searchable as
      // soon as it is parsed; the backfill (requested after every job) gives them vectors next,
      // and until then search ranks them lexically. A document without text ends failed inside;
      // either way this sync may now be over.
      await indexParsedBatch(
        doc.tenant_id,
        [
          {
            documentId: doc.id,
            parsed: { ...parsed.doc, title },
            drafts: parsed.chunks,
            metadata: { ...doc.metadata, ...parsed.doc.metadata },
          },
        ],
        { embed: false },
      );
      await markSyncedIfIdle(doc.tenant_id, doc.data_source_id);
    },

    /** the queue gave up on a document: say so on the document */
    async giveUp(job: JobRow, error: string): Promise<void> {
      if (job.kind !== "ingest") return;
      await content.setDocumentStatus(job.tenant_id, job.subject, "failed", `Indexing failed after ${job.attempts} attempts: ${error}`);
      const doc = await content.getDocument(job.tenant_id, job.subject);
      if (doc) await markSyncedIfIdle(doc.tenant_id, doc.data_source_id);
    },

    /**
     * Embeds chunks that have no vector in the active index (indexed lexically first, model was
     * unavailable, or the profile changed), in batches, until none are left. `beforeBatch` may
     * delay a batch (the scheduler lets ingest go first). Returns how many were embedded.
     */
    async backfill(signal?: AbortSignal, batchSize = 64, beforeBatch?: () => Promise<void>): Promise<number> {
      const e = deps.embedder;
      if (!e || e.status().state !== "ready") return 0;
      const indexName = deps.profile.index_name!;
      let done = 0;
      for (;;) {
        if (signal?.aborted) return done;
        await beforeBatch?.();
        if (signal?.aborted) return done;
        const chunks = await content.unembeddedChunks(indexName, batchSize);
        if (chunks.length === 0) return done;
        const titles = new Map<string, string>();
        for (const c of chunks) {
          if (!titles.has(c.document_id)) titles.set(c.document_id, (await content.getDocument(c.tenant_id, c.document_id))?.title ?? "");
        }
        const vectors = await e.embedPassages(chunks.map((c) => passageText(titles.get(c.document_id) ?? "", c.heading_path, c.text)));
        await content.storeEmbeddings(
          indexName,
          chunks.map((c, i) => ({ chunkId: c.id, vector: vectors[i] })),
        );
        done += chunks.length;
      }
    },
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
export { PermanentJobError };
