// Crawl jobs, crawled pages and failed pages on PostgreSQL (see sqlite/crawls.ts). "One active
// crawl per source" is checked under a row lock on the data source, so two API processes cannot
// both start one.
import { transaction, type Client, type Pool } from "./db.js";
import type { CrawlJobRow, CrawlPageRow, CrawlPageStatus, CrawlStore } from "../crawl-types.js";
import { CRAWL_JOB_COLUMNS, crawlJobValues } from "../crawl-types.js";
import { parseJson } from "./rows.js";

type RawJob = Omit<CrawlJobRow, "include_paths"> & { include_paths: string };
type RawPage = Omit<CrawlPageRow, "links"> & { links: string };

const JOB_COLS = `${CRAWL_JOB_COLUMNS}, git_commit`;
const PAGE_COLS = "tenant_id, data_source_id, url, job_id, format, links, etag, last_modified, content_hash, document_id, crawled_at";
const PATCH_COLUMNS = ["pages_crawled", "pages_failed", "error", "started_at", "finished_at", "git_commit"] as const;

const toJob = (r: RawJob): CrawlJobRow => ({ ...r, include_paths: parseJson<string[]>(r.include_paths, []) });
const toPage = (r: RawPage): CrawlPageRow => ({ ...r, links: parseJson<string[]>(r.links, []) });

/** Locks the source row and tells whether another crawl of it is queued or running. */
async function otherActive(c: Client, tenantId: string, sourceId: string, jobId: string): Promise<boolean> {
  await c.query("SELECT 1 FROM data_sources WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, sourceId]);
  const r = await c.query("SELECT 1 FROM crawl_jobs WHERE tenant_id = $1 AND data_source_id = $2 AND status IN ('queued', 'running') AND id <> $3", [tenantId, sourceId, jobId]);
  return (r.rowCount ?? 0) > 0;
}

/** Writes a new crawl job unless another crawl of its source is queued or running. */
async function createJob(pool: Pool, row: CrawlJobRow): Promise<boolean> {
  return transaction(pool, async (c) => {
    if (await otherActive(c, row.tenant_id, row.data_source_id, row.id)) return false;
    await c.query(`INSERT INTO crawl_jobs (${CRAWL_JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, crawlJobValues(row, (b) => b));
    return true;
  });
}

/** Puts a failed or cancelled job back in the queue unless another crawl of its source is live. */
async function requeueJob(pool: Pool, tenantId: string, id: string): Promise<CrawlJobRow | null> {
  return transaction(pool, async (c) => {
    const cur = (await c.query<RawJob>(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE tenant_id = $1 AND id = $2`, [tenantId, id])).rows[0];
    if (!cur || (await otherActive(c, tenantId, cur.data_source_id, id))) return null;
    const r = await c.query<RawJob>(
      `UPDATE crawl_jobs SET status = 'queued', error = NULL, finished_at = NULL
       WHERE tenant_id = $1 AND id = $2 AND status IN ('failed', 'cancelled') RETURNING ${JOB_COLS}`,
      [tenantId, id],
    );
    return r.rows[0] ? toJob(r.rows[0]) : null;
  });
}

type JobMethods = Pick<CrawlStore, "create" | "get" | "list" | "activeForSource" | "byId" | "transition" | "requeue" | "setProgress" | "unfinished" | "lastGitSync">;
type PageMethods = Pick<CrawlStore, "page" | "pagesOfJob" | "recordPage" | "indexProgress" | "pageStatuses">;
type FailureMethods = Pick<CrawlStore, "recordFailure" | "clearFailures">;

function crawlJobMethods(pool: Pool): JobMethods {
  const one = async (sql: string, params: unknown[]) => {
    const r = await pool.query<RawJob>(sql, params);
    return r.rows[0] ? toJob(r.rows[0]) : null;
  };
  return {
    async create(row) {
      return createJob(pool, row);
    },
    async get(tenantId, id) {
      return one(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    },
    async list(tenantId, limit, before) {
      const r = before
        ? await pool.query<RawJob>(
            `SELECT ${JOB_COLS} FROM crawl_jobs WHERE tenant_id = $1 AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC LIMIT $4`,
            [tenantId, before.created_at, before.id, limit],
          )
        : await pool.query<RawJob>(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [tenantId, limit]);
      return r.rows.map(toJob);
    },
    async activeForSource(sourceId) {
      return one(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE data_source_id = $1 AND status IN ('queued', 'running') ORDER BY created_at DESC LIMIT 1`, [sourceId]);
    },
    async byId(id) {
      return one(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE id = $1`, [id]);
    },
    async transition(id, from, to, patch = {}) {
      const sets = ["status = $1"];
      const params: unknown[] = [to];
      for (const c of PATCH_COLUMNS) {
        if (patch[c] === undefined) continue;
        params.push(patch[c]);
        sets.push(`${c} = $${params.length}`);
      }
      params.push(id, [...from]);
      return one(`UPDATE crawl_jobs SET ${sets.join(", ")} WHERE id = $${params.length - 1} AND status = ANY($${params.length}::text[]) RETURNING ${JOB_COLS}`, params);
    },
    async requeue(tenantId, id) {
      return requeueJob(pool, tenantId, id);
    },
    async setProgress(id, pagesCrawled, pagesFailed) {
      await pool.query("UPDATE crawl_jobs SET pages_crawled = $1, pages_failed = $2 WHERE id = $3 AND status = 'running'", [pagesCrawled, pagesFailed, id]);
    },
    async lastGitSync(sourceId) {
      return one(`SELECT ${JOB_COLS} FROM crawl_jobs WHERE data_source_id = $1 AND status = 'completed' AND git_commit IS NOT NULL ORDER BY finished_at DESC LIMIT 1`, [sourceId]);
    },
    async unfinished() {
      return (await pool.query<{ id: string; tenant_id: string }>("SELECT id, tenant_id FROM crawl_jobs WHERE status IN ('queued', 'running')")).rows;
    },
  };
}

// one ordered list: key "0<url>" for failures, "1<url>" for handed-over pages; `after` is a key
const PAGE_STATUSES = `SELECT * FROM (
    SELECT '0' || url AS k, url, 'failed' AS status, NULL::text AS document_id, reason, failed_at AS at
      FROM crawl_failures WHERE tenant_id = $1 AND job_id = $2
    UNION ALL
    SELECT '1' || p.url, p.url,
           CASE WHEN d.status IN ('queued', 'processing') THEN 'pending' ELSE d.status END,
           d.id, d.error, p.crawled_at
      FROM crawl_pages p JOIN documents d ON d.tenant_id = p.tenant_id AND d.id = p.document_id WHERE p.tenant_id = $1 AND p.job_id = $2
  ) x WHERE ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR k COLLATE "C" > $4) ORDER BY k COLLATE "C" LIMIT $5`;

function crawlPageMethods(pool: Pool): PageMethods {
  return {
    async page(sourceId, url) {
      const r = await pool.query<RawPage>(`SELECT ${PAGE_COLS} FROM crawl_pages WHERE data_source_id = $1 AND url = $2 AND document_id IS NOT NULL`, [sourceId, url]);
      return r.rows[0] ? toPage(r.rows[0]) : null;
    },
    async pagesOfJob(jobId) {
      return (await pool.query<RawPage>(`SELECT ${PAGE_COLS} FROM crawl_pages WHERE job_id = $1 AND document_id IS NOT NULL`, [jobId])).rows.map(toPage);
    },
    async recordPage(p) {
      await pool.query(
        `INSERT INTO crawl_pages (${PAGE_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (tenant_id, data_source_id, url) DO UPDATE SET job_id = excluded.job_id, format = excluded.format, links = excluded.links,
           etag = excluded.etag, last_modified = excluded.last_modified, content_hash = excluded.content_hash,
           document_id = excluded.document_id, crawled_at = excluded.crawled_at`,
        [p.tenant_id, p.data_source_id, p.url, p.job_id, p.format, JSON.stringify(p.links), p.etag, p.last_modified, p.content_hash, p.document_id, p.crawled_at],
      );
    },
    async indexProgress(jobId) {
      const r = await pool.query<{ pending: number; indexed: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE d.status IN ('queued', 'processing')) AS pending,
                count(*) FILTER (WHERE d.status = 'indexed') AS indexed,
                count(*) FILTER (WHERE d.status = 'failed') AS failed
         FROM crawl_pages p JOIN documents d ON d.tenant_id = p.tenant_id AND d.id = p.document_id WHERE p.job_id = $1`,
        [jobId],
      );
      return r.rows[0]!;
    },
    async pageStatuses(tenantId, jobId, o) {
      const r = await pool.query<CrawlPageStatus & { k: string }>(PAGE_STATUSES, [tenantId, jobId, o.status, o.after, o.limit]);
      return r.rows.map(({ k: _k, ...row }) => row);
    },
  };
}

function crawlFailureMethods(pool: Pool): FailureMethods {
  return {
    async recordFailure(f) {
      await pool.query(
        `INSERT INTO crawl_failures (job_id, tenant_id, data_source_id, url, reason, failed_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (tenant_id, job_id, url) DO UPDATE SET reason = excluded.reason, failed_at = excluded.failed_at`,
        [f.job_id, f.tenant_id, f.data_source_id, f.url, f.reason, f.failed_at],
      );
    },
    async clearFailures(jobId) {
      await pool.query("DELETE FROM crawl_failures WHERE job_id = $1", [jobId]);
    },
  };
}

export function pgCrawls(pool: Pool): CrawlStore {
  return { ...crawlJobMethods(pool), ...crawlPageMethods(pool), ...crawlFailureMethods(pool) };
}
