// A job table's row operations in SQLite (../job-rows.ts): insert, read one of a tenant's, and the
// status transition (moves a row of this tenant to `to` when its status is one of `from`, applying
// the patch, and returns the updated raw row). apply is kept as an INTEGER 0/1.
import type { DB } from "./db.js";
import { columnList, jobPatchEntries, jobRowValues, type JobTable } from "../job-rows.js";

export function sqliteJobRows<Raw>(db: DB, t: JobTable) {
  const columns = columnList(t);
  const insert = db.prepare(`INSERT INTO ${t.table} (${columns}) VALUES (${t.columns.map(() => "?").join(", ")})`);
  const get = db.prepare(`SELECT ${columns} FROM ${t.table} WHERE tenant_id = ? AND id = ?`);
  return {
    columns,
    insert: (row: object) => void insert.run(...jobRowValues(t, row, (b) => (b ? 1 : 0))),
    get: (tenantId: string, id: string) => get.get(tenantId, id) as Raw | undefined,
    transition(tenantId: string, id: string, from: readonly string[], to: string, patch: object): Raw | undefined {
      const entries = jobPatchEntries(t, patch);
      const sets = ["status = ?", ...entries.map(([c]) => `${c} = ?`)];
      const sql = `UPDATE ${t.table} SET ${sets.join(", ")} WHERE tenant_id = ? AND id = ? AND status IN (SELECT value FROM json_each(?)) RETURNING ${columns}`;
      return db.prepare(sql).get(to, ...entries.map(([, v]) => v), tenantId, id, JSON.stringify(from)) as Raw | undefined;
    },
  };
}
