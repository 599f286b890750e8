import type { DB } from "../db.js";
import type { ContentStore, JobRow, NewJob } from "../../content-types.js";
import { parseJson } from "./json.js";

type Raw = Omit<JobRow, "payload"> & { payload: string };
const toJob = (r: Raw): JobRow => ({ ...r, payload: parseJson(r.payload, {}) });

/** Queues a job unless one for the same subject and kind is already waiting (it will see the latest state). */
export function enqueue(db: DB, job: NewJob, runAfter = new Date()): void {
  const waiting = db
    .prepare("SELECT 1 FROM jobs WHERE subject = ? AND kind = ? AND status = 'queued'")
    .get(job.subject, job.kind);
  if (waiting) return;
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO jobs (tenant_id, kind, subject, payload, status, attempts, max_attempts, run_after, created_at)
     VALUES (?, ?, ?, ?, 'queued', 0, ?, ?, ?)`,
  ).run(job.tenant_id, job.kind, job.subject, JSON.stringify(job.payload ?? {}), job.max_attempts ?? 5, runAfter.toISOString(), now);
}

type JobMethods = Pick<
  ContentStore,
  "enqueueJob" | "claimJob" | "completeJob" | "failJob" | "requeueRunningJobs" | "requeueOrphans" | "pendingJobCount"
>;

export function jobMethods(db: DB): JobMethods {
  return {
    async enqueueJob(job) {
      enqueue(db, job);
    },
    async claimJob(kinds, now) {
      const r = db
        .prepare(
          `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_at = ?
           WHERE id = (SELECT id FROM jobs q WHERE status = 'queued' AND run_after <= ?
                       AND kind IN (SELECT value FROM json_each(?))
                       -- one running job per subject: a newer job (a re-upload) waits for the older
                       -- one, which could otherwise finish last and index the stale version
                       AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.subject = q.subject AND r.kind = q.kind AND r.status = 'running')
                       ORDER BY id LIMIT 1)
           RETURNING *`,
        )
        .get(now.toISOString(), now.toISOString(), JSON.stringify(kinds)) as Raw | undefined;
      return r ? toJob(r) : null;
    },
    async completeJob(id) {
      db.prepare("DELETE FROM jobs WHERE id = ?").run(id);
    },
    async failJob(id, error, retryAt) {
      if (retryAt) {
        db.prepare("UPDATE jobs SET status = 'queued', last_error = ?, run_after = ?, locked_at = NULL WHERE id = ?").run(
          error,
          retryAt.toISOString(),
          id,
        );
      } else {
        db.prepare("UPDATE jobs SET status = 'failed', last_error = ?, locked_at = NULL WHERE id = ?").run(error, id);
      }
    },
    async requeueRunningJobs(kinds) {
      return db
        .prepare("UPDATE jobs SET status = 'queued', locked_at = NULL WHERE status = 'running' AND kind IN (SELECT value FROM json_each(?))")
        .run(JSON.stringify(kinds)).changes;
    },
    async requeueOrphans() {
      const now = new Date().toISOString();
      return db
        .prepare(
          `INSERT INTO jobs (tenant_id, kind, subject, payload, status, attempts, max_attempts, run_after, created_at)
           SELECT d.tenant_id, 'ingest', d.id, '{}', 'queued', 0, 5, ?, ? FROM documents d
           WHERE d.status IN ('queued', 'processing')
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.subject = d.id AND j.status IN ('queued', 'running'))`,
        )
        .run(now, now).changes;
    },
    async pendingJobCount() {
      return (db.prepare("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'running')").get() as { n: number }).n;
    },
  };
}
