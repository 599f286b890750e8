// A job table's status transition on PostgreSQL (see sqlite/job-rows.ts).
import type { Pool } from "./db.js";
import { columnList, jobPatchEntries, type JobTable } from "../job-rows.js";

export function pgTransition<Raw extends object>(pool: Pool, t: JobTable) {
  return async (tenantId: string, id: string, from: readonly string[], to: string, patch: object): Promise<Raw | undefined> => {
    const entries = jobPatchEntries(t, patch);
    const sets = ["status = $1", ...entries.map(([c], i) => `${c} = $${i + 2}`)];
    const params: unknown[] = [to, ...entries.map(([, v]) => v), tenantId, id, [...from]];
    const n = params.length;
    const sql = `UPDATE ${t.table} SET ${sets.join(", ")} WHERE tenant_id = $${n - 2} AND id = $${n - 1} AND status = ANY($${n}::text[]) RETURNING ${columnList(t)}`;
    return (await pool.query<Raw>(sql, params)).rows[0];
  };
}
