// Crawl freshness on PostgreSQL (see sqlite/freshness.ts and freshness-types.ts).
import { transaction, type Pool } from "./db.js";
import { emptyCounts, type FreshnessStore, type MissedPage, type PageOutcome } from "../freshness-types.js";

export function pgFreshness(pool: Pool): FreshnessStore {
  return { ...outcomeMethods(pool), ...missMethods(pool), ...textHashMethods(pool) };
}

type OutcomeMethods = Pick<FreshnessStore, "recordOutcome" | "clearFailedOutcomes" | "outcomeCounts" | "failedStatuses">;

function outcomeMethods(pool: Pool): OutcomeMethods {
  return {
    async recordOutcome(r) {
      await transaction(pool, async (c) => {
        await c.query(
          `INSERT INTO crawl_page_outcomes (job_id, tenant_id, data_source_id, url, outcome, http_status, at) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (tenant_id, job_id, url) DO UPDATE SET outcome = excluded.outcome, http_status = excluded.http_status, at = excluded.at
           WHERE crawl_page_outcomes.outcome = 'failed' AND excluded.outcome <> 'failed'`,
          [r.job_id, r.tenant_id, r.data_source_id, r.url, r.outcome, r.http_status, r.at],
        );
        if (r.outcome !== "failed" && r.outcome !== "removed") {
          await c.query("DELETE FROM crawl_page_misses WHERE data_source_id = $1 AND url = $2", [r.data_source_id, r.url]);
        }
      });
    },
    async clearFailedOutcomes(jobId) {
      await pool.query("DELETE FROM crawl_page_outcomes WHERE job_id = $1 AND outcome = 'failed'", [jobId]);
    },
    async outcomeCounts(jobId) {
      const counts = emptyCounts();
      const r = await pool.query<{ outcome: PageOutcome; n: string }>("SELECT outcome, count(*) AS n FROM crawl_page_outcomes WHERE job_id = $1 GROUP BY outcome", [jobId]);
      for (const row of r.rows) if (row.outcome in counts) counts[row.outcome] = Number(row.n);
      return counts;
    },
    async failedStatuses(jobId) {
      const r = await pool.query<{ url: string; http_status: number | null }>("SELECT url, http_status FROM crawl_page_outcomes WHERE job_id = $1 AND outcome = 'failed'", [jobId]);
      return new Map(r.rows.map((row) => [row.url, row.http_status]));
    },
  };
}

type MissMethods = Pick<FreshnessStore, "missedPages" | "setMiss" | "forgetPage" | "staleCount">;

function missMethods(pool: Pool): MissMethods {
  return {
    async missedPages(sourceId, jobId) {
      const r = await pool.query<MissedPage>(
        `SELECT p.url, p.document_id, coalesce(m.misses, 0) AS misses, m.stale_since, m.job_id AS miss_job_id
           FROM crawl_pages p LEFT JOIN crawl_page_misses m ON m.tenant_id = p.tenant_id AND m.data_source_id = p.data_source_id AND m.url = p.url
          WHERE p.data_source_id = $1 AND p.job_id <> $2 AND p.document_id IS NOT NULL ORDER BY p.url`,
        [sourceId, jobId],
      );
      return r.rows;
    },
    async setMiss(m) {
      await pool.query(
        `INSERT INTO crawl_page_misses (tenant_id, data_source_id, url, misses, stale_since, reason, job_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant_id, data_source_id, url) DO UPDATE SET misses = excluded.misses, stale_since = excluded.stale_since, reason = excluded.reason, job_id = excluded.job_id`,
        [m.tenant_id, m.data_source_id, m.url, m.misses, m.stale_since, m.reason, m.job_id],
      );
    },
    async forgetPage(sourceId, url) {
      await transaction(pool, async (c) => {
        await c.query("DELETE FROM crawl_pages WHERE data_source_id = $1 AND url = $2", [sourceId, url]);
        await c.query("DELETE FROM crawl_page_misses WHERE data_source_id = $1 AND url = $2", [sourceId, url]);
      });
    },
    async staleCount(jobId) {
      const r = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM crawl_page_outcomes o
           JOIN crawl_pages p ON p.tenant_id = o.tenant_id AND p.data_source_id = o.data_source_id AND p.url = o.url AND p.document_id IS NOT NULL
          WHERE o.job_id = $1 AND o.outcome = 'failed' AND coalesce(o.http_status, 0) NOT IN (404, 410)`,
        [jobId],
      );
      return Number(r.rows[0]?.n ?? 0);
    },
  };
}

type TextHashMethods = Pick<FreshnessStore, "textHash" | "setTextHash" | "keepIndexed">;

function textHashMethods(pool: Pool): TextHashMethods {
  return {
    async textHash(tenantId, documentId) {
      const r = await pool.query<{ text_hash: string }>("SELECT text_hash FROM document_text_hashes WHERE tenant_id = $1 AND document_id = $2", [tenantId, documentId]);
      return r.rows[0]?.text_hash ?? null;
    },
    async setTextHash(tenantId, documentId, hash) {
      await pool.query(
        `INSERT INTO document_text_hashes (document_id, tenant_id, text_hash) SELECT id, tenant_id, $1 FROM documents WHERE tenant_id = $2 AND id = $3
         ON CONFLICT (tenant_id, document_id) DO UPDATE SET text_hash = excluded.text_hash`,
        [hash, tenantId, documentId],
      );
    },
    async keepIndexed(tenantId, documentId, metadata) {
      const r = await pool.query(
        "UPDATE documents SET status = 'indexed', error = NULL, metadata = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2 AND chunk_count > 0",
        [tenantId, documentId, JSON.stringify(metadata), new Date().toISOString()],
      );
      return (r.rowCount ?? 0) > 0;
    },
  };
}
