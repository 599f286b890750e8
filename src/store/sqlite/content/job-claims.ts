// Claiming queue jobs in SQLite: a claim is one UPDATE ... RETURNING, so two workers can never
// take the same job, and the per-tenant cap and one-running-job-per-subject rule are checked in it.
import type { DB } from "../db.js";
import type { JobTable } from "../../content-store.js";
import { kindsJson, toJob, type RawJob } from "./job-rows.js";

type ClaimMethods = Pick<JobTable, "jobTenantLoads" | "claimJob">;

// Walks queued jobs in id order (index jobs_claim_order, or jobs_tenant_order for one tenant) and
// stops at the first ready one; `+run_after` keeps the planner off the run_after index, which
// would sort every queued job on each claim.
const claimSql = (tenantFilter: string) =>
  `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_at = @now, owner = @owner, lease_until = @lease, cancel_requested = 0
   WHERE id = (SELECT id FROM jobs q WHERE status = 'queued' AND +run_after <= @now ${tenantFilter}
               AND kind IN (SELECT value FROM json_each(@kinds))
               AND (@cap IS NULL OR (SELECT count(*) FROM jobs t WHERE t.tenant_id = q.tenant_id AND t.status = 'running'
                                     AND t.kind IN (SELECT value FROM json_each(@kinds))) < @cap)
               -- one running job per subject: a newer job (a re-upload) waits for the older
               -- one, which could otherwise finish last and index the stale version
               AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.subject = q.subject AND r.kind = q.kind AND r.status = 'running')
               ORDER BY id LIMIT 1)
   RETURNING *`;

// Tenants with a ready job, found without reading every queued job: hop from tenant to tenant
// along jobs_tenant_order, then per tenant the first ready job in id order and its running count.
const TENANT_LOADS = `WITH RECURSIVE ten(tid) AS (
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
  WHERE first_ready IS NOT NULL ORDER BY first_ready`;

export function jobClaimMethods(db: DB): ClaimMethods {
  const claimAny = db.prepare(claimSql("AND @tenant IS NULL"));
  const tenantLoads = db.prepare(TENANT_LOADS);
  const claimOfTenant = db.prepare(claimSql("AND q.tenant_id = @tenant"));
  return {
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
      }) as RawJob | undefined;
      return r ? toJob(r) : null;
    },
  };
}
