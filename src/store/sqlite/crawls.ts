// Crawl jobs and crawled pages in SQLite. Their queue jobs belong to the JobQueue: the crawl
// service queues them, and the crawl queue's recovery gives any unfinished crawl a missing job.
import type { DB } from "./db.js";
import type { CrawlJobRow, CrawlPageRow, CrawlPageStatus, CrawlPatch, CrawlStatus, CrawlStore } from "../crawl-types.js";
import { parseJson } from "./content/json.js";

type RawJob = Omit<CrawlJobRow, "render_js" | "include_paths"> & { render_js: number; include_paths: string };
type RawPage = Omit<CrawlPageRow, "links"> & { links: string };

const toJob = (r: RawJob): CrawlJobRow => ({
  ...r,
  render_js: r.render_js === 1,
  include_paths: parseJson<string[]>(r.include_paths, []),
});
const toPage = (r: RawPage): CrawlPageRow => ({ ...r, links: parseJson<string[]>(r.links, []) });

const PATCH_COLUMNS = ["pages_crawled", "pages_failed", "error", "started_at", "finished_at"] as const;

export function sqliteCrawls(db: DB): CrawlStore {
  const byId = db.prepare("SELECT * FROM crawl_jobs WHERE id = ?");
  const byTenant = db.prepare("SELECT * FROM crawl_jobs WHERE tenant_id = ? AND id = ?");
  const activeOf = db.prepare("SELECT 1 FROM crawl_jobs WHERE data_source_id = ? AND status IN ('queued', 'running') AND id != ?");

  const create = db.transaction((row: CrawlJobRow) => {
    if (activeOf.get(row.data_source_id, row.id)) return false;
    db.prepare(
      `INSERT INTO crawl_jobs (id, tenant_id, data_source_id, url, status, pages_crawled, pages_failed, page_limit, max_depth,
         render_js, include_paths, error, created_at, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.id,
      row.tenant_id,
      row.data_source_id,
      row.url,
      row.status,
      row.pages_crawled,
      row.pages_failed,
      row.page_limit,
      row.max_depth,
      row.render_js ? 1 : 0,
      JSON.stringify(row.include_paths),
      row.error,
      row.created_at,
      row.started_at,
      row.finished_at,
    );
    return true;
  });

  const transition = db.transaction((id: string, from: readonly CrawlStatus[], to: CrawlStatus, patch: CrawlPatch) => {
    const sets = ["status = ?"];
    const params: unknown[] = [to];
    for (const c of PATCH_COLUMNS) {
      if (patch[c] !== undefined) {
        sets.push(`${c} = ?`);
        params.push(patch[c]);
      }
    }
    const r = db
      .prepare(`UPDATE crawl_jobs SET ${sets.join(", ")} WHERE id = ? AND status IN (SELECT value FROM json_each(?)) RETURNING *`)
      .get(...params, id, JSON.stringify(from)) as RawJob | undefined;
    return r ? toJob(r) : null;
  });

  const requeue = db.transaction((tenantId: string, id: string) => {
    const current = byTenant.get(tenantId, id) as RawJob | undefined;
    if (!current || activeOf.get(current.data_source_id, id)) return null;
    const r = db
      .prepare(
        `UPDATE crawl_jobs SET status = 'queued', error = NULL, finished_at = NULL
         WHERE tenant_id = ? AND id = ? AND status IN ('failed', 'cancelled') RETURNING *`,
      )
      .get(tenantId, id) as RawJob | undefined;
    return r ? toJob(r) : null;
  });

  return {
    async create(row) {
      return create(row);
    },
    async get(tenantId, id) {
      const r = byTenant.get(tenantId, id) as RawJob | undefined;
      return r ? toJob(r) : null;
    },
    async list(tenantId, limit, before) {
      const rows = before
        ? (db
            .prepare("SELECT * FROM crawl_jobs WHERE tenant_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?")
            .all(tenantId, before.created_at, before.created_at, before.id, limit) as RawJob[])
        : (db.prepare("SELECT * FROM crawl_jobs WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT ?").all(tenantId, limit) as RawJob[]);
      return rows.map(toJob);
    },
    async activeForSource(sourceId) {
      const r = db
        .prepare("SELECT * FROM crawl_jobs WHERE data_source_id = ? AND status IN ('queued', 'running') ORDER BY created_at DESC LIMIT 1")
        .get(sourceId) as RawJob | undefined;
      return r ? toJob(r) : null;
    },
    async byId(id) {
      const r = byId.get(id) as RawJob | undefined;
      return r ? toJob(r) : null;
    },
    async transition(id, from, to, patch = {}) {
      return transition(id, from, to, patch);
    },
    async requeue(tenantId, id) {
      return requeue(tenantId, id);
    },
    async setProgress(id, pagesCrawled, pagesFailed) {
      db.prepare("UPDATE crawl_jobs SET pages_crawled = ?, pages_failed = ? WHERE id = ? AND status = 'running'").run(pagesCrawled, pagesFailed, id);
    },
    async page(sourceId, url) {
      const r = db
        .prepare("SELECT * FROM crawl_pages WHERE data_source_id = ? AND url = ? AND document_id IS NOT NULL")
        .get(sourceId, url) as RawPage | undefined;
      return r ? toPage(r) : null;
    },
    async pagesOfJob(jobId) {
      return (db.prepare("SELECT * FROM crawl_pages WHERE job_id = ? AND document_id IS NOT NULL").all(jobId) as RawPage[]).map(toPage);
    },
    async recordPage(p) {
      db.prepare(
        `INSERT INTO crawl_pages (tenant_id, data_source_id, url, job_id, format, links, etag, last_modified, content_hash, document_id, crawled_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (data_source_id, url) DO UPDATE SET job_id = excluded.job_id, format = excluded.format, links = excluded.links,
           etag = excluded.etag, last_modified = excluded.last_modified, content_hash = excluded.content_hash,
           document_id = excluded.document_id, crawled_at = excluded.crawled_at`,
      ).run(
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
    async unfinished() {
      return db.prepare("SELECT id, tenant_id FROM crawl_jobs WHERE status IN ('queued', 'running')").all() as { id: string; tenant_id: string }[];
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
    async indexProgress(jobId) {
      const rows = db
        .prepare(
          `SELECT d.status AS status, count(*) AS n FROM crawl_pages p JOIN documents d ON d.id = p.document_id
           WHERE p.job_id = ? GROUP BY d.status`,
        )
        .all(jobId) as { status: string; n: number }[];
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
