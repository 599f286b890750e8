// JSON columns are text in both stores (key order as written); a missing or unreadable value
// reads as the fallback rather than failing the request that reads the row.
export const parseJson = <T>(s: string | null | undefined, fallback: T): T => {
  if (!s) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

/** Vector index tables are created from profile names; only plain identifiers reach SQL. */
export function vectorTable(indexName: string): string {
  if (!/^[a-z0-9_]{1,60}$/.test(indexName)) throw new Error(`invalid vector index name '${indexName}'`);
  return `vec_${indexName.replace(/^vec_/, "")}`;
}

/** The job row as both stores hand it out: ids as strings, the payload parsed. */
export function toJobRow<R extends { id: string | number; payload: string }>(r: R): Omit<R, "id" | "payload"> & { id: string; payload: Record<string, unknown> } {
  return { ...r, id: String(r.id), payload: parseJson<Record<string, unknown>>(r.payload, {}) };
}
