// A job table's row operations on PostgreSQL (see sqlite/job-rows.ts).
import type { Pool } from "./db.js";
import { columnList, jobPatchEntries, jobRowValues, type JobTable } from "../job-rows.js";

export function pgJobRows<Raw extends object>(pool: Pool, t: JobTable) {
  const columns = columnList(t);
  return {
    columns,
    async insert(row: object): Promise<void> {
      await pool.query(`INSERT INTO ${t.table} (${columns}) VALUES (${t.columns.map((_, i) => `$${i + 1}`).join(", ")})`, jobRowValues(t, row, (b) => b));
    },
    async get(tenantId: string, id: string): Promise<Raw | undefined> {
      return (await pool.query<Raw>(`SELECT ${columns} FROM ${t.table} WHERE tenant_id = $1 AND id = $2`, [tenantId, id])).rows[0];
    },
    async transition(tenantId: string, id: string, from: readonly string[], to: string, patch: object): Promise<Raw | undefined> {
      const entries = jobPatchEntries(t, patch);
      const sets = ["status = $1", ...entries.map(([c], i) => `${c} = $${i + 2}`)];
      const params: unknown[] = [to, ...entries.map(([, v]) => v), tenantId, id, [...from]];
      const n = params.length;
      const sql = `UPDATE ${t.table} SET ${sets.join(", ")} WHERE tenant_id = $${n - 2} AND id = $${n - 1} AND status = ANY($${n}::text[]) RETURNING ${columns}`;
      return (await pool.query<Raw>(sql, params)).rows[0];
    },
  };
}
