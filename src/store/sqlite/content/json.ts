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
