// Storage contract of crawl freshness: what became of each page in a crawl job (exact counts by
// outcome), the pages recent crawls missed (removal after N misses, stale pages kept), and the
// extracted-text hash that lets a changed page with the same text keep its chunks and vectors.
// Worker-side methods: job and source ids come from the queue, never from a request.

export type PageOutcome = "new" | "changed" | "unchanged" | "removed" | "failed";

export const PAGE_OUTCOMES: readonly PageOutcome[] = ["new", "changed", "unchanged", "removed", "failed"];

export interface PageOutcomeRow {
  job_id: string;
  tenant_id: string;
  data_source_id: string;
  url: string;
  outcome: PageOutcome;
  /** the answer's HTTP status for a failed page (null: no answer, e.g. a timeout) */
  http_status: number | null;
  at: string;
}

export type OutcomeCounts = Record<PageOutcome, number>;

/** A page of the source whose document exists and which this job did not hand over. */
export interface MissedPage {
  url: string;
  document_id: string;
  /** consecutive crawls before this one that missed it */
  misses: number;
  stale_since: string | null;
  /** the job that counted the latest miss */
  miss_job_id: string | null;
}

export interface PageMiss {
  tenant_id: string;
  data_source_id: string;
  url: string;
  misses: number;
  stale_since: string | null;
  reason: string | null;
  job_id: string;
}

export interface FreshnessStore {
  /**
   * Records what became of a page in the job. The first outcome of a URL stands (a second attempt
   * running beside the first cannot count a page twice), except that a page handed over or removed
   * replaces a failure of an earlier attempt. A page handed over clears its misses.
   */
  recordOutcome(row: PageOutcomeRow): Promise<void>;
  /** a new attempt starts: the failed pages are tried again */
  clearFailedOutcomes(jobId: string): Promise<void>;
  outcomeCounts(jobId: string): Promise<OutcomeCounts>;
  /** failed pages of the job, URL -> HTTP status (null when there was no answer) */
  failedStatuses(jobId: string): Promise<Map<string, number | null>>;
  /** the source's pages that have a document and that this job did not hand over */
  missedPages(sourceId: string, jobId: string): Promise<MissedPage[]>;
  setMiss(row: PageMiss): Promise<void>;
  /** forgets a removed page: its crawl_pages row and its misses */
  forgetPage(sourceId: string, url: string): Promise<void>;
  /** pages that failed in the job (not 404/410) but kept their document, its last good version: stale */
  staleCount(jobId: string): Promise<number>;
  textHash(tenantId: string, documentId: string): Promise<string | null>;
  setTextHash(tenantId: string, documentId: string, hash: string): Promise<void>;
  /**
   * The document's text did not change: it is indexed again as it was (chunks and vectors kept),
   * with this metadata. False when the document is gone.
   */
  keepIndexed(tenantId: string, documentId: string, metadata: Record<string, unknown>): Promise<boolean>;
}

export const emptyCounts = (): OutcomeCounts => ({ new: 0, changed: 0, unchanged: 0, removed: 0, failed: 0 });
