// The embedded queue's storage in SQLite. Claims, completions and recovery are single statements
// (SQLite serialises writers), so several worker processes on one database file stay consistent.
import type { DB } from "../db.js";
import type { ContentStore, JobRow, JobStoreMethods, NewJob } from "../../content-types.js";
import { toJobRow } from "./json.js";

type Raw = Omit<JobRow, "payload" | "id"> & { id: number; payload: string };
const toJob = (r: Raw): JobRow => toJobRow(r);
const kindsJson = (kinds: string[]) => JSON.stringify(kinds);
/** ids are opaque strings outside; a string that is not one of ours matches nothing */
const rowId = (id: string) => (/^\d+$/.test(id) ? Number(id) : -1);

type JobMethods = JobStoreMethods & Pick<ContentStore, "documentsAwaitingIngest">;

export function jobMethods(db: DB): JobMethods {
  const existing = db.prepare(
    "SELECT id FROM jobs WHERE subject = ? AND kind = ? AND (status = 'queued' OR (? AND status = 'running')) LIMIT 1",
  );
  const insert = db.prepare(
    `INSERT INTO jobs (tenant_id, kind, subject, payload, status, attempts, max_attempts, run_after, created_at)
     VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
  );
  const enqueue = db.transaction((job: NewJob): string | null => {
    if (existing.get(job.subject, job.kind, job.unlessLive ? 1 : 0)) return null;
    const now = new Date();
    const runAfter = new Date(now.getTime() + (job.delayMs ?? 0)).toISOString();
    const r = insert.run(job.tenant_id, job.kind, job.subject, JSON.stringify(job.payload ?? {}), job.max_attempts ?? 5, runAfter, now.toISOString());
    return String(r.lastInsertRowid);
  });

  // Walks queued jobs in id order (index jobs_claim_order, or jobs_tenant_order for one tenant) and
  // stops at the first ready one; `+run_after` keeps the planner off the run_after index, which
  // would sort every queued job on each claim.
  const claimSql = (tenantFilter: string) =>
    db.prepare(
      `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_at = @now, owner = @owner, lease_until = @lease, cancel_requested = 0
       WHERE id = (SELECT id FROM jobs q WHERE status = 'queued' AND +run_after <= @now ${tenantFilter}
                   AND kind IN (SELECT value FROM json_each(@kinds))
                   AND (@cap IS NULL OR (SELECT count(*) FROM jobs t WHERE t.tenant_id = q.tenant_id AND t.status = 'running'
                                         AND t.kind IN (SELECT value FROM json_each(@kinds))) < @cap)
                   -- one running job per subject: a newer job (a re-upload) waits for the older
                   -- one, which could otherwise finish last and index the stale version
                   AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.subject = q.subject AND r.kind = q.kind AND r.status = 'running')
                   ORDER BY id LIMIT 1)
       RETURNING *`,
    );
  const claimAny = claimSql("AND @tenant IS NULL");
  // Tenants with a ready job, found without reading every queued job: hop from tenant to tenant
  // along jobs_tenant_order, then per tenant the first ready job in id order and its running count.
  const tenantLoads = db.prepare(
    `WITH RECURSIVE ten(tid) AS (
       SELECT (SELECT min(tenant_id) FROM jobs)
       UNION ALL
       SELECT (SELECT min(tenant_id) FROM jobs WHERE tenant_id > ten.tid) FROM ten WHERE ten.tid IS NOT NULL
     )
     SELECT * FROM (
       SELECT tid AS tenant_id,
              (SELECT id FROM jobs j WHERE j.tenant_id = tid AND j.status = 'queued' AND +j.run_after <= @now
                 AND j.kind IN (SELECT value FROM json_each(@kinds)) ORDER BY id LIMIT 1) AS first_ready,
              (SELECT count(*) FROM jobs j WHERE j.tenant_id = tid AND j.status = 'running'
                 AND j.kind IN (SELECT value FROM json_each(@kinds))) AS running
       FROM ten WHERE tid IS NOT NULL)
     WHERE first_ready IS NOT NULL ORDER BY first_ready`,
  );
  const claimOfTenant = claimSql("AND q.tenant_id = @tenant");

  return {
    async enqueueJob(job) {
      return enqueue(job);
    },

    async jobTenantLoads(kinds, now) {
      return (tenantLoads.all({ now: now.toISOString(), kinds: kindsJson(kinds) }) as { tenant_id: string; running: number; first_ready: number }[]).map(
        (x) => ({ tenant_id: x.tenant_id, ready: 1, running: x.running, first_ready: String(x.first_ready) }),
      );
    },

    async claimJob(kinds, now, claim) {
      const r = (claim.tenantId ? claimOfTenant : claimAny).get({
        now: now.toISOString(),
        owner: claim.owner,
        lease: claim.leaseUntil.toISOString(),
        kinds: kindsJson(kinds),
        tenant: claim.tenantId ?? null,
        cap: claim.tenantCap ?? null,
      }) as Raw | undefined;
      return r ? toJob(r) : null;
    },

    async renewJobLeases(owner, leaseUntil) {
      const rows = db
        .prepare("UPDATE jobs SET lease_until = ? WHERE owner = ? AND status = 'running' RETURNING id, cancel_requested")
        .all(leaseUntil.toISOString(), owner) as { id: number; cancel_requested: number }[];
      return rows.filter((r) => r.cancel_requested).map((r) => String(r.id));
    },

    async completeJob(id, owner) {
      return db.prepare("DELETE FROM jobs WHERE id = ? AND owner = ? AND status = 'running'").run(rowId(id), owner).changes > 0;
    },

    async failJob(id, owner, error, retryAt) {
      const held = "WHERE id = ? AND owner = ? AND status = 'running'";
      const r = retryAt
        ? db
            .prepare(`UPDATE jobs SET status = 'queued', last_error = ?, run_after = ?, locked_at = NULL, owner = NULL, lease_until = NULL ${held}`)
            .run(error, retryAt.toISOString(), rowId(id), owner)
        : db
            .prepare(`UPDATE jobs SET status = 'failed', last_error = ?, locked_at = NULL, owner = NULL, lease_until = NULL ${held}`)
            .run(error, rowId(id), owner);
      return r.changes > 0;
    },

    async requeueStalledJobs(kinds, now, deadOwners) {
      return db
        .prepare(
          `UPDATE jobs SET status = 'queued', locked_at = NULL, owner = NULL, lease_until = NULL
           WHERE status = 'running' AND kind IN (SELECT value FROM json_each(?))
             AND (owner IS NULL OR lease_until IS NULL OR lease_until < ? OR owner IN (SELECT value FROM json_each(?)))`,
        )
        .run(kindsJson(kinds), now.toISOString(), JSON.stringify(deadOwners)).changes;
    },

    async jobOwners(kinds) {
      const rows = db
        .prepare("SELECT DISTINCT owner FROM jobs WHERE status = 'running' AND owner IS NOT NULL AND kind IN (SELECT value FROM json_each(?))")
        .all(kindsJson(kinds)) as { owner: string }[];
      return rows.map((r) => r.owner);
    },

    async cancelJobs(kind, subject) {
      const removed = db.prepare("DELETE FROM jobs WHERE kind = ? AND subject = ? AND status = 'queued'").run(kind, subject).changes;
      const flagged = db
        .prepare("UPDATE jobs SET cancel_requested = 1 WHERE kind = ? AND subject = ? AND status = 'running'")
        .run(kind, subject).changes;
      return removed + flagged;
    },

    async pendingJobCount(kinds) {
      const r = kinds
        ? db
            .prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running') AND kind IN (SELECT value FROM json_each(?))")
            .get(kindsJson(kinds))
        : db.prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')").get();
      return (r as { n: number }).n;
    },

    async documentsAwaitingIngest(updatedBefore, limit) {
      return db
        .prepare("SELECT tenant_id, id FROM documents WHERE status IN ('queued', 'processing') AND updated_at < ? ORDER BY updated_at LIMIT ?")
        .all(updatedBefore.toISOString(), limit) as { tenant_id: string; id: string }[];
    },
  };
}
