// What the stores' job tables share (benchmark_tunings, collection_adaptations): rows that move
// between statuses with a patch, atomically, and carry the finished job's answer as JSON text in
// `result` and the request's `apply` flag. Each backend turns these into its SQL (insert, read one,
// transition: sqlite/job-rows.ts, postgres/job-rows.ts).
import type { Json } from "./content-types.js";

/** A job table: its name, its columns in insert order, and those a transition may set. */
export interface JobTable {
  table: string;
  columns: readonly string[];
  patchable: readonly string[];
}

/** The columns a transition sets from its patch, with the values as both stores keep them (the answer as JSON text). */
export function jobPatchEntries(t: JobTable, patch: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const c of t.patchable) {
    const v = (patch as Record<string, unknown>)[c];
    if (v !== undefined) out.push([c, c === "result" && v !== null ? JSON.stringify(v) : v]);
  }
  return out;
}

/** A row's values in the table's column order; `flag` turns apply into what the store keeps, the answer is JSON text. */
export function jobRowValues(t: JobTable, row: object, flag: (b: boolean) => unknown): unknown[] {
  const r = row as Record<string, unknown>;
  return t.columns.map((c) => (c === "apply" ? flag(r[c] === true) : c === "result" ? (r[c] === null ? null : JSON.stringify(r[c] as Json)) : r[c]));
}

export const columnList = (t: JobTable) => t.columns.join(", ");
