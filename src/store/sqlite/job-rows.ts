// A job table's status transition in SQLite (../job-rows.ts): moves a row of this tenant to `to`
// when its status is one of `from`, applying the patch, and returns the updated raw row.
import type { DB } from "./db.js";
import { columnList, jobPatchEntries, type JobTable } from "../job-rows.js";

export function sqliteTransition<Raw>(db: DB, t: JobTable) {
  return (tenantId: string, id: string, from: readonly string[], to: string, patch: object): Raw | undefined => {
    const entries = jobPatchEntries(t, patch);
    const sets = ["status = ?", ...entries.map(([c]) => `${c} = ?`)];
    const sql = `UPDATE ${t.table} SET ${sets.join(", ")} WHERE tenant_id = ? AND id = ? AND status IN (SELECT value FROM json_each(?)) RETURNING ${columnList(t)}`;
    return db.prepare(sql).get(to, ...entries.map(([, v]) => v), tenantId, id, JSON.stringify(from)) as Raw | undefined;
  };
}
