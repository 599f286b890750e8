// The ingest job: a stored file parsed (isolated) and chunked, then indexed lexically at once;
// and what happens when the queue gives up on one. Each takes the ingest dependencies first.
import type { QueuedJob as JobRow } from "../../jobs/types.js";
import type { DocumentRow } from "../../store/content-types.js";
import type { FileKind } from "../../ingest/types.js";
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

export async function handleIngestJob(deps: IngestDeps, job: JobRow): Promise<void> {
  const doc = await deps.store.content.getDocument(job.tenant_id, job.subject);
  if (!doc) return; // deleted meanwhile
  const parsed = await parseStored(deps, doc);
  if (!parsed) return;
  // A crawled page keeps the title the crawler saw when the parser finds none better.
  const title = parsed.doc.title || doc.title;
  // Lexical first: the chunks are committed without vectors, so the document is searchable as
  // soon as it is parsed; the backfill (requested after every job) gives them vectors next,
  // and until then search ranks them lexically. A document without text ends failed inside;
  // either way this sync may now be over.
  await indexParsedBatch(
    deps,
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
  await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
}

/** the queue gave up on a document: say so on the document */
export async function giveUpIngest(deps: Pick<IngestDeps, "store">, job: JobRow, error: string): Promise<void> {
  if (job.kind !== "ingest") return;
  await deps.store.content.setDocumentStatus(job.tenant_id, job.subject, "failed", `Indexing failed after ${job.attempts} attempts: ${error}`);
  const doc = await deps.store.content.getDocument(job.tenant_id, job.subject);
  if (doc) await markSyncedIfIdle(deps, doc.tenant_id, doc.data_source_id);
}
