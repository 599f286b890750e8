// The ingest job: stored file -> parse (isolated) -> heading-aware chunks -> chunks and lexical
// entries written in one transaction (searchable at once); the backfill adds vectors afterwards.
// Parse errors end the document as `failed` with the parser's words; other errors are retried.//
// The operations are named functions taking these dependencies: ingest-index.ts (indexing and
// the backfill), ingest-job.ts (the job). createIngestService binds them for the runtime.
import type { QueuedJob as JobRow } from "../../jobs/types.js";
import type { ParsedDocument } from "../../ingest/types.js";
import { PermanentJobError } from "../../jobs/embedded-queue.js";
import type { IngestDeps, ParsedItem } from "./ingest-types.js";
import { backfillEmbeddings, indexParsedBatch } from "./ingest-index.js";
import { giveUpIngest, handleIngestJob } from "./ingest-job.js";

export { passageText } from "./ingest-index.js";

export type { IngestDeps, ParsedItem, IndexBatchResult } from "./ingest-types.js";
export function createIngestService(deps: IngestDeps) {
  return {
    /** Indexes parsed documents of one tenant, one embedding call for the batch (ingest-index.ts). */
    indexParsedBatch: (tenantId: string, items: ParsedItem[], opts: { embed?: boolean } = {}) => indexParsedBatch(deps, tenantId, items, opts),
    /** indexParsedBatch for one document */
    indexParsed: (tenantId: string, documentId: string, parsed: ParsedDocument, metadata?: Record<string, unknown>) =>
      indexParsedBatch(deps, tenantId, [{ documentId, parsed, metadata }]),
    handle: (job: JobRow) => handleIngestJob(deps, job),
    /** the queue gave up on a document: say so on the document */
    giveUp: (job: JobRow, error: string) => giveUpIngest(deps, job, error),
    /** Embeds chunks that have no vector in the active index, in batches, until none are left. */
    backfill: (signal?: AbortSignal, batchSize = 64, beforeBatch?: () => Promise<void>) => backfillEmbeddings(deps, signal, batchSize, beforeBatch),
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
export { PermanentJobError };
