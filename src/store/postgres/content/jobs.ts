// The embedded queue's storage in PostgreSQL (jobs/embedded-queue.ts runs on it unchanged).
// Claims take a row with FOR UPDATE SKIP LOCKED, so workers of every process claim in parallel
// without waiting on each other; the partial unique index jobs_one_running keeps one running job
// per subject even when two processes claim two versions of it at the same instant.
import { isUniqueViolation, transaction, type Pool, type Queryable } from "../db.js";
import { toJobRow } from "../../json.js";
import type { JobClaim, JobRow } from "../../content-types.js";
import type { JobTable } from "../../content-store.js";
import { LIMIT_LOCK, LOCK_CLAIMS, bigintId } from "./rows.js";

type Raw = Omit<JobRow, "payload" | "id"> & { id: string; payload: string };
const toJob = (r: Raw): JobRow => toJobRow(r);

// The oldest ready job (optionally of one tenant, under its cap) whose subject has no running job.
// A row another claimer holds is skipped, not waited for.
const CLAIM = `
  WITH pick AS (
    SELECT id FROM jobs q
    WHERE status = 'queued' AND run_after <= $1 AND kind = ANY($2::text[]) AND ($5::text IS NULL OR q.tenant_id = $5)
      AND ($6::int IS NULL OR (SELECT count(*) FROM jobs t WHERE t.tenant_id = q.tenant_id AND t.status = 'running'
                                AND t.kind = ANY($2::text[])) < $6)
      -- a newer job (a re-upload) waits for the older one, which could otherwise finish last and
      -- index the stale version
      AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.subject = q.subject AND r.kind = q.kind AND r.status = 'running')
    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
  UPDATE jobs j SET status = 'running', attempts = attempts + 1, locked_at = $1, owner = $3, lease_until = $4, cancel_requested = FALSE
  FROM pick WHERE j.id = pick.id AND j.status = 'queued'
  RETURNING j.id::text AS id, j.tenant_id, j.kind, j.subject, j.payload, j.status, j.attempts, j.max_attempts, j.run_after,
    j.last_error, j.owner`;

// Tenants with a ready job without reading every queued job: hop from tenant to tenant along
// jobs_tenant_order (a loose index scan), then per tenant its first ready job and running count.
const TENANT_LOADS = `
  WITH RECURSIVE ten(tid) AS (
    SELECT min(tenant_id) FROM jobs
    UNION ALL
    SELECT (SELECT min(tenant_id) FROM jobs WHERE tenant_id > ten.tid) FROM ten WHERE ten.tid IS NOT NULL)
  SELECT * FROM (
    SELECT tid AS tenant_id,
      (SELECT id FROM jobs j WHERE j.tenant_id = tid AND j.status = 'queued' AND j.run_after <= $1 AND j.kind = ANY($2::text[])
       ORDER BY id LIMIT 1) AS first_ready,
      (SELECT count(*) FROM jobs j WHERE j.tenant_id = tid AND j.status = 'running' AND j.kind = ANY($2::text[]))::int AS running
    FROM ten WHERE tid IS NOT NULL) x
  WHERE first_ready IS NOT NULL ORDER BY first_ready`;

/** attempts at a claim that lost a same-subject race before giving up for this round */
const CLAIM_RETRIES = 3;

/** Claims the oldest ready job, retrying when it lost a same-subject race to another process. */
async function claimJob(pool: Pool, kinds: string[], now: Date, claim: JobClaim): Promise<JobRow | null> {
  const params = [now.toISOString(), kinds, claim.owner, claim.leaseUntil.toISOString(), claim.tenantId ?? null, claim.tenantCap ?? null];
  const once = async (q: Queryable): Promise<JobRow | null> => {
    const r = await q.query<Raw>(CLAIM, params);
    return r.rows[0] ? toJob(r.rows[0]) : null;
  };
  for (let i = 0; i < CLAIM_RETRIES; i++) {
    try {
      if (claim.tenantCap === undefined || claim.tenantId === undefined) return await once(pool);
      // a capped claim counts the tenant's running jobs: claimers of one tenant (in every
      // process) take turns, so two cannot both see the last free slot
      return await transaction(pool, async (c) => {
        await c.query(LIMIT_LOCK, [LOCK_CLAIMS, claim.tenantId]);
        return once(c);
      });
    } catch (err) {
      // another process started a job of the same subject meanwhile: look for another one
      if (!isUniqueViolation(err)) throw err;
    }
  }
  return null;
}

/** A job's way through the queue: enqueued, claimed, kept alive, finished or failed. */
function lifecycleMethods(pool: Pool): Pick<JobTable, "enqueueJob" | "claimJob" | "renewJobLeases" | "completeJob" | "failJob"> {
  return {
    async enqueueJob(job) {
      const now = new Date();
      const runAfter = new Date(now.getTime() + (job.delayMs ?? 0)).toISOString();
      // one statement: the check and the insert see one snapshot (a concurrent duplicate of the
      // same subject can slip in between processes; the queue runs them one after the other)
      const r = await pool.query<{ id: string }>(
        `INSERT INTO jobs (tenant_id, kind, subject, payload, status, attempts, max_attempts, run_after, created_at)
         SELECT $1, $2, $3, $4, 'queued', 0, $5, $6, $7
         WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE subject = $3 AND kind = $2 AND (status = 'queued' OR ($8 AND status = 'running')))
         RETURNING id::text AS id`,
        [job.tenant_id, job.kind, job.subject, JSON.stringify(job.payload ?? {}), job.max_attempts ?? 5, runAfter, now.toISOString(), !!job.unlessLive],
      );
      return r.rows[0]?.id ?? null;
    },

    async claimJob(kinds, now, claim) {
      return claimJob(pool, kinds, now, claim);
    },

    async renewJobLeases(owner, leaseUntil) {
      const r = await pool.query<{ id: string; cancel_requested: boolean }>(
        "UPDATE jobs SET lease_until = $1 WHERE owner = $2 AND status = 'running' RETURNING id::text AS id, cancel_requested",
        [leaseUntil.toISOString(), owner],
      );
      return r.rows.filter((x) => x.cancel_requested).map((x) => x.id);
    },

    async completeJob(id, owner) {
      const r = await pool.query("DELETE FROM jobs WHERE id = $1 AND owner = $2 AND status = 'running'", [bigintId(id), owner]);
      return (r.rowCount ?? 0) > 0;
    },

    async failJob(id, owner, error, retryAt) {
      const r = retryAt
        ? await pool.query(
            `UPDATE jobs SET status = 'queued', last_error = $3, run_after = $4, locked_at = NULL, owner = NULL, lease_until = NULL
             WHERE id = $1 AND owner = $2 AND status = 'running'`,
            [bigintId(id), owner, error, retryAt.toISOString()],
          )
        : await pool.query(
            `UPDATE jobs SET status = 'failed', last_error = $3, locked_at = NULL, owner = NULL, lease_until = NULL
             WHERE id = $1 AND owner = $2 AND status = 'running'`,
            [bigintId(id), owner, error],
          );
      return (r.rowCount ?? 0) > 0;
    },
  };
}

/** The queue seen from above: loads per tenant, live owners, stalled jobs, cancellation, counts. */
function oversightMethods(
  pool: Pool,
): Pick<JobTable, "jobTenantLoads" | "requeueStalledJobs" | "jobOwners" | "cancelJobs" | "pendingJobCount"> {
  return {
    async jobTenantLoads(kinds, now) {
      const r = await pool.query<{ tenant_id: string; running: number; first_ready: string }>(TENANT_LOADS, [now.toISOString(), kinds]);
      return r.rows.map((x) => ({ tenant_id: x.tenant_id, ready: 1, running: x.running, first_ready: String(x.first_ready) }));
    },

    async requeueStalledJobs(kinds, now, deadOwners) {
      const r = await pool.query(
        `UPDATE jobs SET status = 'queued', locked_at = NULL, owner = NULL, lease_until = NULL
         WHERE status = 'running' AND kind = ANY($1::text[])
           AND (owner IS NULL OR lease_until IS NULL OR lease_until < $2 OR owner = ANY($3::text[]))`,
        [kinds, now.toISOString(), deadOwners],
      );
      return r.rowCount ?? 0;
    },

    async jobOwners(kinds) {
      const r = await pool.query<{ owner: string }>(
        "SELECT DISTINCT owner FROM jobs WHERE status = 'running' AND owner IS NOT NULL AND kind = ANY($1::text[])",
        [kinds],
      );
      return r.rows.map((x) => x.owner);
    },

    async cancelJobs(kind, subject) {
      const removed = await pool.query("DELETE FROM jobs WHERE kind = $1 AND subject = $2 AND status = 'queued'", [kind, subject]);
      const flagged = await pool.query("UPDATE jobs SET cancel_requested = TRUE WHERE kind = $1 AND subject = $2 AND status = 'running'", [kind, subject]);
      return (removed.rowCount ?? 0) + (flagged.rowCount ?? 0);
    },

    async pendingJobCount(kinds) {
      const r = kinds
        ? await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running') AND kind = ANY($1::text[])", [kinds])
        : await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'running')");
      return r.rows[0]!.n;
    },
  };
}

export function jobMethods(pool: Pool): JobTable {
  return { ...lifecycleMethods(pool), ...oversightMethods(pool) };
}
