// A tenant's in-memory index (bm25-index.ts) knows each chunk's data source by a small ordinal;
// these map source ids to ordinals while loading, and a query's sources to the index's mask.
// Shared by the embedded store's indexes and the PostgreSQL store's cache of them.

/** The ordinal of a data source, given the next free one when first seen. */
export function sourceOrdinal(sources: Map<string, number>, sourceId: string): number {
  let o = sources.get(sourceId);
  if (o === undefined) sources.set(sourceId, (o = sources.size));
  return o;
}

/** The index's mask of the sources in scope (sources it has never seen are left out). */
export function allowedSources(sources: Map<string, number>, sourceIds: readonly string[]): Uint8Array {
  const allowed = new Uint8Array(sources.size);
  for (const s of sourceIds) {
    const o = sources.get(s);
    if (o !== undefined) allowed[o] = 1;
  }
  return allowed;
}
