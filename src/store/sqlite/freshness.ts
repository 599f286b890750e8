// Crawl freshness in SQLite: page outcomes per job, misses per source page, text hashes
// (see freshness-types.ts).
import type { DB } from "./db.js";
import { emptyCounts, type FreshnessStore, type MissedPage, type PageOutcome } from "../freshness-types.js";

export function sqliteFreshness(db: DB): FreshnessStore {
  return { ...outcomeMethods(db), ...missMethods(db), ...textHashMethods(db) };
}

type OutcomeMethods = Pick<FreshnessStore, "recordOutcome" | "clearFailedOutcomes" | "outcomeCounts" | "failedStatuses">;

function outcomeMethods(db: DB): OutcomeMethods {
  const clearMiss = db.prepare("DELETE FROM crawl_page_misses WHERE data_source_id = ? AND url = ?");
  const insertOutcome = db.prepare(
    `INSERT INTO crawl_page_outcomes (job_id, tenant_id, data_source_id, url, outcome, http_status, at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (job_id, url) DO UPDATE SET outcome = excluded.outcome, http_status = excluded.http_status, at = excluded.at
     WHERE crawl_page_outcomes.outcome = 'failed' AND excluded.outcome <> 'failed'`,
  );
  const record = db.transaction((r: Parameters<FreshnessStore["recordOutcome"]>[0]) => {
    insertOutcome.run(r.job_id, r.tenant_id, r.data_source_id, r.url, r.outcome, r.http_status, r.at);
    if (r.outcome !== "failed" && r.outcome !== "removed") clearMiss.run(r.data_source_id, r.url);
  });
  return {
    async recordOutcome(row) {
      record.immediate(row);
    },
    async clearFailedOutcomes(jobId) {
      db.prepare("DELETE FROM crawl_page_outcomes WHERE job_id = ? AND outcome = 'failed'").run(jobId);
    },
    async outcomeCounts(jobId) {
      const counts = emptyCounts();
      const rows = db.prepare("SELECT outcome, count(*) AS n FROM crawl_page_outcomes WHERE job_id = ? GROUP BY outcome").all(jobId) as { outcome: PageOutcome; n: number }[];
      for (const r of rows) if (r.outcome in counts) counts[r.outcome] = r.n;
      return counts;
    },
    async failedStatuses(jobId) {
      const rows = db.prepare("SELECT url, http_status FROM crawl_page_outcomes WHERE job_id = ? AND outcome = 'failed'").all(jobId) as { url: string; http_status: number | null }[];
      return new Map(rows.map((r) => [r.url, r.http_status]));
    },
  };
}

type MissMethods = Pick<FreshnessStore, "missedPages" | "setMiss" | "forgetPage" | "staleCount">;

function missMethods(db: DB): MissMethods {
  return {
    async missedPages(sourceId, jobId) {
      return db
        .prepare(
          `SELECT p.url, p.document_id, coalesce(m.misses, 0) AS misses, m.stale_since, m.job_id AS miss_job_id
             FROM crawl_pages p LEFT JOIN crawl_page_misses m ON m.data_source_id = p.data_source_id AND m.url = p.url
            WHERE p.data_source_id = ? AND p.job_id <> ? AND p.document_id IS NOT NULL ORDER BY p.url`,
        )
        .all(sourceId, jobId) as MissedPage[];
    },
    async setMiss(m) {
      db.prepare(
        `INSERT INTO crawl_page_misses (tenant_id, data_source_id, url, misses, stale_since, reason, job_id) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (data_source_id, url) DO UPDATE SET misses = excluded.misses, stale_since = excluded.stale_since, reason = excluded.reason, job_id = excluded.job_id`,
      ).run(m.tenant_id, m.data_source_id, m.url, m.misses, m.stale_since, m.reason, m.job_id);
    },
    async forgetPage(sourceId, url) {
      db.prepare("DELETE FROM crawl_pages WHERE data_source_id = ? AND url = ?").run(sourceId, url);
      db.prepare("DELETE FROM crawl_page_misses WHERE data_source_id = ? AND url = ?").run(sourceId, url);
    },
    async staleCount(jobId) {
      return (
        db
          .prepare(
            `SELECT count(*) AS n FROM crawl_page_outcomes o
               JOIN crawl_pages p ON p.data_source_id = o.data_source_id AND p.url = o.url AND p.document_id IS NOT NULL
              WHERE o.job_id = ? AND o.outcome = 'failed' AND coalesce(o.http_status, 0) NOT IN (404, 410)`,
          )
          .get(jobId) as { n: number }
      ).n;
    },
  };
}

type TextHashMethods = Pick<FreshnessStore, "textHash" | "setTextHash" | "keepIndexed">;

function textHashMethods(db: DB): TextHashMethods {
  return {
    async textHash(tenantId, documentId) {
      const r = db.prepare("SELECT text_hash FROM document_text_hashes WHERE tenant_id = ? AND document_id = ?").get(tenantId, documentId) as { text_hash: string } | undefined;
      return r?.text_hash ?? null;
    },
    async setTextHash(tenantId, documentId, hash) {
      // the document may be gone meanwhile: then there is nothing to remember
      db.prepare(
        `INSERT INTO document_text_hashes (document_id, tenant_id, text_hash) SELECT id, tenant_id, ? FROM documents WHERE tenant_id = ? AND id = ?
         ON CONFLICT (document_id) DO UPDATE SET text_hash = excluded.text_hash`,
      ).run(hash, tenantId, documentId);
    },
    async keepIndexed(tenantId, documentId, metadata) {
      const r = db
        .prepare("UPDATE documents SET status = 'indexed', error = NULL, metadata = ?, updated_at = ? WHERE tenant_id = ? AND id = ? AND chunk_count > 0")
        .run(JSON.stringify(metadata), new Date().toISOString(), tenantId, documentId);
      return r.changes > 0;
    },
  };
}
