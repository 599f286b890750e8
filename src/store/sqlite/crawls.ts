// Crawl jobs and crawled pages in SQLite. Their queue jobs belong to the JobQueue: the crawl
// service queues them, and the crawl queue's recovery gives any unfinished crawl a missing job.
// Crawl rows are read here and moved through their states below; pages live in crawl-pages.ts.
import type { DB } from "./db.js";
import type { CrawlJobRow, CrawlPatch, CrawlStatus, CrawlStore } from "../crawl-types.js";
import { CRAWL_JOB_COLUMNS, crawlJobValues } from "../crawl-types.js";
import { parseJson } from "./content/json.js";
import { crawlPageMethods, crawlPageReports } from "./crawl-pages.js";

type RawJob = Omit<CrawlJobRow, "render_js" | "include_paths"> & { render_js: number; include_paths: string };

const toJob = (r: RawJob): CrawlJobRow => ({
  ...r,
  render_js: r.render_js === 1,
  include_paths: parseJson<string[]>(r.include_paths, []),
});

const PATCH_COLUMNS = ["pages_crawled", "pages_failed", "error", "started_at", "finished_at", "git_commit"] as const;

type JobReads = Pick<CrawlStore, "get" | "list" | "activeForSource" | "byId" | "unfinished" | "lastGitSync">;
type JobLifecycle = Pick<CrawlStore, "create" | "transition" | "requeue" | "setProgress">;

export function sqliteCrawls(db: DB): CrawlStore {
  return { ...crawlJobReads(db), ...crawlJobLifecycle(db), ...crawlPageMethods(db), ...crawlPageReports(db) };
}

function crawlJobReads(db: DB): JobReads {
  const byId = db.prepare("SELECT * FROM crawl_jobs WHERE id = ?");
  const byTenant = db.prepare("SELECT * FROM crawl_jobs WHERE tenant_id = ? AND id = ?");
  return {
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
    async lastGitSync(sourceId) {
      const r = db
        .prepare("SELECT * FROM crawl_jobs WHERE data_source_id = ? AND status = 'completed' AND git_commit IS NOT NULL ORDER BY finished_at DESC LIMIT 1")
        .get(sourceId) as RawJob | undefined;
      return r ? toJob(r) : null;
    },
    async unfinished() {
      return db.prepare("SELECT id, tenant_id FROM crawl_jobs WHERE status IN ('queued', 'running')").all() as { id: string; tenant_id: string }[];
    },
  };
}

function crawlJobLifecycle(db: DB): JobLifecycle {
  const byTenant = db.prepare("SELECT * FROM crawl_jobs WHERE tenant_id = ? AND id = ?");
  const activeOf = db.prepare("SELECT 1 FROM crawl_jobs WHERE data_source_id = ? AND status IN ('queued', 'running') AND id != ?");
  const progress = db.prepare("UPDATE crawl_jobs SET pages_crawled = ?, pages_failed = ? WHERE id = ? AND status = 'running'");
  const insert = db.prepare(
    `INSERT INTO crawl_jobs (${CRAWL_JOB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  // One active crawl per source: the check and the insert share a transaction.
  const create = db.transaction((row: CrawlJobRow) => {
    if (activeOf.get(row.data_source_id, row.id)) return false;
    insert.run(...crawlJobValues(row, (b) => (b ? 1 : 0)));
    return true;
  });

  const transition = db.transaction((id: string, from: readonly CrawlStatus[], to: CrawlStatus, patch: CrawlPatch) => {
    const { sets, params } = patchSets(to, patch);
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

  // Writes that read first start IMMEDIATE (the write lock taken at BEGIN, waiting up to the busy
  // timeout): a deferred one that read and then met another process's write failed at once with
  // "database is locked" (WAL cannot upgrade a stale read snapshot), which stopped crawls when an
  // API and a worker process shared the file (test/scaleout/schedule-processes.test.ts). The
  // content store's document, index, collection and job writes do the same.
  return {
    async create(row) {
      return create.immediate(row);
    },
    async transition(id, from, to, patch = {}) {
      return transition.immediate(id, from, to, patch);
    },
    async requeue(tenantId, id) {
      return requeue.immediate(tenantId, id);
    },
    async setProgress(id, pagesCrawled, pagesFailed) {
      progress.run(pagesCrawled, pagesFailed, id);
    },
  };
}

/** SET clauses for the new status and whichever patch columns are given. */
function patchSets(to: CrawlStatus, patch: CrawlPatch): { sets: string[]; params: unknown[] } {
  const sets = ["status = ?"];
  const params: unknown[] = [to];
  for (const c of PATCH_COLUMNS) {
    if (patch[c] !== undefined) {
      sets.push(`${c} = ?`);
      params.push(patch[c]);
    }
  }
  return { sets, params };
}
