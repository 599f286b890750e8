// The ingest job: a stored file parsed (isolated) and chunked, then indexed lexically at once;
// and what happens when the queue gives up on one. Each takes the ingest dependencies first.
import type { QueuedJob as JobRow } from "../../jobs/types.js";
import type { DocumentRow } from "../../store/content-types.js";
import { createHash } from "node:crypto";
import type { ChunkDraft, FileKind } from "../../ingest/types.js";
import { parseAndChunkIsolated } from "../../ingest/parse/isolated.js";
import { isParseError } from "../../ingest/parse/errors.js";
import type { IngestDeps } from "./ingest-types.js";
import { indexParsedBatch } from "./ingest-index.js";

type Parsed = Awaited<ReturnType<typeof parseAndChunkIsolated>>;

/** A sync ends when the source has nothing queued or processing, however its last document ended. */
export async function markSyncedIfIdle(deps: Pick<IngestDeps, "store">, tenantId: string, sourceId: string): Promise<void> {
  const source = await deps.store.content.getSource(tenantId, sourceId);
  if (source && source.pending_count === 0) {
    await deps.store.content.updateSource(tenantId, sourceId, { last_synced_at: new Date().toISOString() });
  }
}

/** Ends the document as failed with the reason; the sync of its source may be over then. */
async function failDocument(deps: Pick<IngestDeps, "store">, doc: DocumentRow, reason: string): Promise<null> {
  await deps.store.content.setDocumentStatus(doc.tenant_id, doc.id, "failed", reason);
  await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
  return null;
}

/**
 * The stored file parsed and chunked in the isolated worker, or null once the document has
 * failed (type unknown, file missing, parse error). Other errors are thrown, so the job is retried.
 */
async function parseStored(deps: Pick<IngestDeps, "store" | "files" | "profile">, doc: DocumentRow): Promise<Parsed | null> {
  if (!doc.kind) return failDocument(deps, doc, doc.error ?? "The file type could not be recognised.");
  await deps.store.content.setDocumentStatus(doc.tenant_id, doc.id, "processing");
  const bytes = await deps.files.read(doc.tenant_id, doc.id);
  if (!bytes) return failDocument(deps, doc, "The stored file is missing; upload the file again.");
  try {
    return await parseAndChunkIsolated(bytes, doc.kind as FileKind, doc.source, {
      chunkSizeTokens: deps.profile.chunk_size_tokens,
      chunkOverlapTokens: deps.profile.chunk_overlap_tokens,
    });
  } catch (err) {
    if (isParseError(err)) return failDocument(deps, doc, err.message);
    throw err;
  }
}

/**
 * A document whose metadata names a `heading_context` (a git source's file path) has it as the
 * outermost heading of every chunk: indexed as a heading and shown in /retrieve's heading_path.
 */
function withHeadingContext(parsed: Parsed | null, metadata: Record<string, unknown> | null): Parsed | null {
  const context = metadata?.heading_context;
  if (!parsed || typeof context !== "string" || !context) return parsed;
  return { ...parsed, chunks: parsed.chunks.map((c) => ({ ...c, headingPath: [context, ...c.headingPath] })) };
}

export async function handleIngestJob(deps: IngestDeps, job: JobRow): Promise<void> {
  const doc = await deps.store.content.getDocument(job.tenant_id, job.subject);
  if (!doc) return; // deleted meanwhile
  const parsed = withHeadingContext(await parseStored(deps, doc), doc.metadata);
  if (!parsed) return;
  // A crawled page keeps the title the crawler saw when the parser finds none better.
  const title = parsed.doc.title || doc.title;
  const metadata = { ...doc.metadata, ...parsed.doc.metadata };
  const hash = textHashOf(deps.profile, title, parsed.chunks);
  if (await keptUnchangedText(deps, job, doc, hash, metadata)) return;
  // Lexical first: the chunks are committed without vectors, so the document is searchable as
  // soon as it is parsed; the backfill (requested after every job) gives them vectors next,
  // and until then search ranks them lexically. A document without text ends failed inside;
  // either way this sync may now be over.
  const indexed = await indexParsedBatch(
    deps,
    doc.tenant_id,
    [
      {
        documentId: doc.id,
        parsed: { ...parsed.doc, title },
        drafts: parsed.chunks,
        metadata,
      },
    ],
    { embed: false },
  );
  if (indexed.documents === 1) await deps.store.freshness?.setTextHash(doc.tenant_id, doc.id, hash);
  await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
}

/**
 * The extracted text as the index sees it: chunk texts and heading paths, the title, and the
 * profile and chunking that made them. Equal hashes mean equal chunks and vectors.
 */
export function textHashOf(profile: IngestDeps["profile"], title: string, chunks: ChunkDraft[]): string {
  const h = createHash("sha256").update(JSON.stringify([profile.index_name, profile.chunk_size_tokens, profile.chunk_overlap_tokens, title]));
  for (const c of chunks) h.update(JSON.stringify([c.headingPath, c.text]));
  return h.digest("hex");
}

/**
 * A crawled page that changed but whose text did not (new markup, a rotated script URL): its
 * chunks and vectors stay as they are; only the document's metadata moves on. Only where the
 * crawler asked for it, so a reindex always rebuilds.
 */
async function keptUnchangedText(deps: IngestDeps, job: JobRow, doc: DocumentRow, hash: string, metadata: Record<string, unknown>): Promise<boolean> {
  const reuse = (job.payload as { reuse_unchanged_text?: unknown } | null)?.reuse_unchanged_text === true;
  const fresh = deps.store.freshness;
  if (!reuse || !fresh || (await fresh.textHash(doc.tenant_id, doc.id)) !== hash) return false;
  if (!(await fresh.keepIndexed(doc.tenant_id, doc.id, metadata))) return false;
  deps.log.debug({ document: doc.id }, "text unchanged; chunks and vectors kept");
  await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
  return true;
}

/** the queue gave up on a document: say so on the document */
export async function giveUpIngest(deps: Pick<IngestDeps, "store">, job: JobRow, error: string): Promise<void> {
  if (job.kind !== "ingest") return;
  await deps.store.content.setDocumentStatus(job.tenant_id, job.subject, "failed", `Indexing failed after ${job.attempts} attempts: ${error}`);
  const doc = await deps.store.content.getDocument(job.tenant_id, job.subject);
  if (doc) await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
}
