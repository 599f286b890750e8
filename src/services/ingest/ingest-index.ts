// Indexing: parsed documents become chunks, lexical and (when the model is ready) vector
// entries; the backfill gives vectors to chunks that were stored without. Each operation takes
// the ingest dependencies first.
import { chunkDocument } from "../../ingest/chunk.js";
import type { IndexBatchResult, IngestDeps, ParsedItem } from "./ingest-types.js";
import type { DocumentIndex } from "../../store/content-store.js";
import type { AdaptedQueryEncoder } from "../../model/query-delta.js";

/** What the embedding model sees for a chunk: the document title anchors short chunks. */
export function passageText(title: string, headingPath: string[], text: string): string {
  const context = [title, ...headingPath].filter(Boolean).join(" › ");
  return context ? `${context}\n${text}` : text;
}

async function embedIfReady(deps: Pick<IngestDeps, "embedder" | "profile" | "passageModels" | "log">, owners: ChunkOwner[], texts: string[]): Promise<Float32Array[] | null> {
  const e = deps.embedder;
  if (!e || e.status().state !== "ready" || texts.length === 0) return null;
  try {
    return await embedChunks(deps, owners, texts);
  } catch (err) {
    // lexical indexing must not wait for the model: the backfill embeds these chunks later
    deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, "embedding failed; chunks stay unembedded for now");
    return null;
  }
}

/**
 * Indexes parsed documents of one tenant: heading-aware chunks, one embedding call for all
 * chunks of the batch (the embedder batches and spreads it over its workers), then the
 * documents' chunks, lexical and vector entries in one store write. `embed: false` stores
 * chunks without vectors (lexical-only indexing; the backfill embeds them later).
 */
export async function indexParsedBatch(deps: IngestDeps, tenantId: string, items: ParsedItem[], opts: { embed?: boolean } = {}): Promise<IndexBatchResult> {
  const chunkOptions = { chunkSizeTokens: deps.profile.chunk_size_tokens, chunkOverlapTokens: deps.profile.chunk_overlap_tokens };
  const docs = items.map((it) => ({ it, drafts: it.drafts ?? chunkDocument(it.parsed, chunkOptions) }));
  const texts = docs.flatMap(({ it, drafts }) => drafts.map((c) => passageText(it.parsed.title, c.headingPath, c.text)));
  const owners = docs.flatMap(({ it, drafts }) => drafts.map(() => ({ tenant_id: tenantId, data_source_id: it.sourceId })));
  const vectors = opts.embed === false ? null : await embedIfReady(deps, owners, texts);
  const indexName = deps.profile.index_name!;
  let offset = 0;
  const writes: DocumentIndex[] = [];
  for (const { it, drafts } of docs) {
    if (drafts.length === 0) {
      await deps.store.content.setDocumentStatus(tenantId, it.documentId, "failed", "The file contains no text to index.");
      continue;
    }
    writes.push({
      documentId: it.documentId,
      doc: { title: it.parsed.title, metadata: it.metadata ?? it.parsed.metadata },
      chunks: drafts.map((c) => ({ position: c.position, text: c.text, heading_path: c.headingPath, token_count: c.tokenCount, metadata: c.metadata })),
      vectors: vectors ? { indexName, values: vectors.slice(offset, offset + drafts.length) } : null,
    });
    offset += drafts.length;
  }
  // the batch's documents in one store write (one transaction, one round of index statements)
  await deps.store.content.replaceDocumentsIndex(tenantId, writes);
  const documents = writes.length;
  return { documents, chunks: texts.length, embedded: vectors !== null };
}

/** Whose a chunk is: its tenant and, where known, its data source (an adapted source's model embeds it). */
type ChunkOwner = { tenant_id: string; data_source_id?: string };

/**
 * The texts' vectors: chunks of a source with a whole-model adaptation embedded with it
 * (passage-models.ts), the others with the embedder, in one call.
 */
async function embedChunks(deps: Pick<IngestDeps, "embedder" | "profile" | "passageModels">, chunks: ChunkOwner[], texts: string[]): Promise<Float32Array[]> {
  const adapted = new Map<string, Map<string, AdaptedQueryEncoder>>();
  if (deps.passageModels) {
    for (const tenant of new Set(chunks.map((c) => c.tenant_id))) {
      const sources = chunks.flatMap((c) => (c.tenant_id === tenant && c.data_source_id ? [c.data_source_id] : []));
      adapted.set(tenant, await deps.passageModels.forSources(tenant, sources));
    }
  }
  const encoderOf = (c: ChunkOwner) => (c.data_source_id ? adapted.get(c.tenant_id)?.get(c.data_source_id) : undefined);
  const plain = chunks.flatMap((c, i) => (encoderOf(c) ? [] : [i]));
  const vectors = plain.length ? await deps.embedder!.embedPassages(plain.map((i) => texts[i]!)) : [];
  const out: Float32Array[] = new Array(chunks.length);
  plain.forEach((i, k) => (out[i] = vectors[k]!));
  chunks.forEach((c, i) => {
    const encoder = encoderOf(c);
    if (encoder) out[i] = encoder.embed(deps.profile.passage_prefix + texts[i]!);
  });
  return out;
}

/**
 * Embeds chunks that have no vector in the active index (indexed lexically first, model was
 * unavailable, the profile changed, or their source's model did), in batches, until none are
 * left. `beforeBatch` may delay a batch (the scheduler lets ingest go first). Returns how many
 * were embedded.
 */
export async function backfillEmbeddings(
  deps: Pick<IngestDeps, "store" | "embedder" | "profile" | "passageModels">,
  signal?: AbortSignal,
  batchSize = 64,
  beforeBatch?: () => Promise<void>,
): Promise<number> {
  const e = deps.embedder;
  if (!e || e.status().state !== "ready") return 0;
  const indexName = deps.profile.index_name!;
  let done = 0;
  for (;;) {
    if (signal?.aborted) return done;
    await beforeBatch?.();
    if (signal?.aborted) return done;
    const chunks = await deps.store.content.unembeddedChunks(indexName, batchSize);
    if (chunks.length === 0) return done;
    const titles = new Map<string, string>();
    for (const c of chunks) {
      if (!titles.has(c.document_id)) titles.set(c.document_id, (await deps.store.content.getDocument(c.tenant_id, c.document_id))?.title ?? "");
    }
    const vectors = await embedChunks(deps, chunks, chunks.map((c) => passageText(titles.get(c.document_id) ?? "", c.heading_path, c.text)));
    await deps.store.content.storeEmbeddings(
      indexName,
      chunks.map((c, i) => ({ chunkId: c.id, vector: vectors[i]! })),
    );
    done += chunks.length;
  }
}
