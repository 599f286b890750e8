// Crawled pages and the pages a crawl could not fetch, in SQLite: what a resumed crawl skips and
// what the crawl's page listing and progress report.
import type { DB } from "./db.js";
import type { CrawlPageRow, CrawlPageStatus, CrawlStore } from "../crawl-types.js";
import { parseJson } from "./content/json.js";

type RawPage = Omit<CrawlPageRow, "links"> & { links: string };
const toPage = (r: RawPage): CrawlPageRow => ({ ...r, links: parseJson<string[]>(r.links, []) });

type PageMethods = Pick<CrawlStore, "page" | "pagesOfJob" | "recordPage" | "recordFailure" | "clearFailures">;
type PageReportMethods = Pick<CrawlStore, "indexProgress" | "pageStatuses">;

export function crawlPageMethods(db: DB): PageMethods {
  // prepared once: a re-crawl reads and writes the page of every URL it visits
  const pageOf = db.prepare("SELECT * FROM crawl_pages WHERE data_source_id = ? AND url = ? AND document_id IS NOT NULL");
  const upsertPage = db.prepare(
    `INSERT INTO crawl_pages (tenant_id, data_source_id, url, job_id, format, links, etag, last_modified, content_hash, document_id, crawled_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (data_source_id, url) DO UPDATE SET job_id = excluded.job_id, format = excluded.format, links = excluded.links,
       etag = excluded.etag, last_modified = excluded.last_modified, content_hash = excluded.content_hash,
       document_id = excluded.document_id, crawled_at = excluded.crawled_at`,
  );
  return {
    async page(sourceId, url) {
      const r = pageOf.get(sourceId, url) as RawPage | undefined;
      return r ? toPage(r) : null;
    },
    async pagesOfJob(jobId) {
      return (db.prepare("SELECT * FROM crawl_pages WHERE job_id = ? AND document_id IS NOT NULL").all(jobId) as RawPage[]).map(toPage);
    },
    async recordPage(p) {
      upsertPage.run(
        p.tenant_id,
        p.data_source_id,
        p.url,
        p.job_id,
        p.format,
        JSON.stringify(p.links),
        p.etag,
        p.last_modified,
        p.content_hash,
        p.document_id,
        p.crawled_at,
      );
    },
    async recordFailure(f) {
      db.prepare(
        `INSERT INTO crawl_failures (job_id, tenant_id, data_source_id, url, reason, failed_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (job_id, url) DO UPDATE SET reason = excluded.reason, failed_at = excluded.failed_at`,
      ).run(f.job_id, f.tenant_id, f.data_source_id, f.url, f.reason, f.failed_at);
    },
    async clearFailures(jobId) {
      db.prepare("DELETE FROM crawl_failures WHERE job_id = ?").run(jobId);
    },
  };
}

/** What became of a crawl's pages: counts by indexing state, and the per-page listing. */
export function crawlPageReports(db: DB): PageReportMethods {
  const progressOf = db.prepare(
    `SELECT d.status AS status, count(*) AS n FROM crawl_pages p JOIN documents d ON d.id = p.document_id
     WHERE p.job_id = ? GROUP BY d.status`,
  );
  return {
    async indexProgress(jobId) {
      const rows = progressOf.all(jobId) as { status: string; n: number }[];
      const n = (s: string[]) => rows.filter((r) => s.includes(r.status)).reduce((a, r) => a + r.n, 0);
      return { pending: n(["queued", "processing"]), indexed: n(["indexed"]), failed: n(["failed"]) };
    },
    async pageStatuses(tenantId, jobId, o) {
      // one ordered list: key "0<url>" for failures, "1<url>" for handed-over pages; `after` is a key
      const rows = db
        .prepare(
          `SELECT * FROM (
             SELECT '0' || url AS k, url, 'failed' AS status, NULL AS document_id, reason, failed_at AS at
               FROM crawl_failures WHERE tenant_id = ? AND job_id = ?
             UNION ALL
             SELECT '1' || p.url, p.url,
                    CASE WHEN d.status IN ('queued', 'processing') THEN 'pending' ELSE d.status END,
                    d.id, d.error, p.crawled_at
               FROM crawl_pages p JOIN documents d ON d.id = p.document_id WHERE p.tenant_id = ? AND p.job_id = ?
           ) WHERE (? IS NULL OR status = ?) AND (? IS NULL OR k > ?) ORDER BY k LIMIT ?`,
        )
        .all(tenantId, jobId, tenantId, jobId, o.status, o.status, o.after, o.after, o.limit) as (CrawlPageStatus & { k: string })[];
      return rows.map(({ k: _k, ...r }) => r);
    },
  };
}
