// The ingest job: stored file -> parse (isolated) -> heading-aware chunks -> embeddings (when the
// model is ready) -> chunks, lexical and vector entries written in one transaction. Parse errors
// end the document as `failed` with the parser's words; other errors are retried by the queue.
import type { Logger } from "pino";
import type { Store } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import type { JobRow } from "../store/content-types.js";
import type { Embedder, EmbeddingProfile } from "../embed/types.js";
import type { FileKind } from "../ingest/types.js";
import { parseIsolated } from "../ingest/parse/isolated.js";
import { isParseError } from "../ingest/parse/errors.js";
import { chunkDocument } from "../ingest/chunk.js";
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

  return {
    async handle(job: JobRow): Promise<void> {
      const doc = await content.getDocument(job.tenant_id, job.subject);
      if (!doc) return; // deleted meanwhile
      if (!doc.kind) {
        await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", doc.error ?? "The file type could not be recognised.");
        return;
      }
      await content.setDocumentStatus(doc.tenant_id, doc.id, "processing");
      const bytes = await deps.files.read(doc.tenant_id, doc.id);
      if (!bytes) {
        await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", "The stored file is missing; upload the file again.");
        return;
      }
      let parsed;
      try {
        parsed = await parseIsolated(bytes, doc.kind as FileKind, doc.source);
      } catch (err) {
        if (isParseError(err)) {
          await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", err.message);
          return;
        }
        throw err;
      }
      const drafts = chunkDocument(parsed, {
        chunkSizeTokens: deps.profile.chunk_size_tokens,
        chunkOverlapTokens: deps.profile.chunk_overlap_tokens,
      });
      if (drafts.length === 0) {
        await content.setDocumentStatus(doc.tenant_id, doc.id, "failed", "The file contains no text to index.");
        return;
      }
      // A crawled page keeps the title the crawler saw when the parser finds none better.
      const title = parsed.title || doc.title;
      const vectors = await embedIfReady(drafts.map((c) => passageText(title, c.headingPath, c.text)));
      const indexName = deps.profile.index_name!;
      await content.replaceDocumentIndex(
        doc.tenant_id,
        doc.id,
        { title, metadata: { ...doc.metadata, ...parsed.metadata } },
        drafts.map((c) => ({
          position: c.position,
          text: c.text,
          heading_path: c.headingPath,
          token_count: c.tokenCount,
          metadata: c.metadata,
        })),
        vectors ? { indexName, values: vectors } : null,
      );
      const source = await content.getSource(doc.tenant_id, doc.data_source_id);
      if (source && source.pending_count === 0) {
        await content.updateSource(doc.tenant_id, doc.data_source_id, { last_synced_at: new Date().toISOString() });
      }
    },

    /** the queue gave up on a document: say so on the document */
    async giveUp(job: JobRow, error: string): Promise<void> {
      if (job.kind !== "ingest") return;
      await content.setDocumentStatus(job.tenant_id, job.subject, "failed", `Indexing failed after ${job.attempts} attempts: ${error}`);
    },

    /**
     * Embeds chunks that have no vector in the active index (model was unavailable, or the
     * profile changed), in batches, until none are left. Returns how many were embedded.
     */
    async backfill(signal?: AbortSignal, batchSize = 64): Promise<number> {
      const e = deps.embedder;
      if (!e || e.status().state !== "ready") return 0;
      const indexName = deps.profile.index_name!;
      let done = 0;
      for (;;) {
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
