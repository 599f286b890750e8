// The embedded queue's storage in SQLite. Claims, completions and recovery are single statements
// (SQLite serialises writers), so several worker processes on one database file stay consistent.
// Claiming is in job-claims.ts; queueing, finishing, recovery and counts are here.
import type { DB } from "../db.js";
import type { NewJob } from "../../content-types.js";
import type { JobTable } from "../../content-store.js";
import { kindsJson, rowId } from "./job-rows.js";
import { jobClaimMethods } from "./job-claims.js";

export function jobMethods(db: DB): JobTable {
  return {
    ...queueMethods(db),
    ...jobClaimMethods(db),
    ...heldJobTable(db),
    ...jobRecoveryMethods(db),
  };
}

/** Jobs in and out of the queue from the producer's side: queue, cancel, count. */
function queueMethods(db: DB): Pick<JobTable, "enqueueJob" | "cancelJobs" | "pendingJobCount"> {
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
  return {
    async enqueueJob(job) {
      return enqueue.immediate(job);
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
  };
}

/** What a worker does with the jobs it holds: keep its leases, then complete or fail each. */
function heldJobTable(db: DB): Pick<JobTable, "renewJobLeases" | "completeJob" | "failJob"> {
  return {
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
  };
}

/** Recovery: running jobs whose owner died or whose lease ran out go back to the queue. */
function jobRecoveryMethods(db: DB): Pick<JobTable, "requeueStalledJobs" | "jobOwners"> {
  return {
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
  };
}
