// One hit per document for /search (collapse_documents: true), and a per-document cap for
// /retrieve (max_chunks_per_document).

export interface ScoredId {
  id: string;
  score: number;
}

export type DocumentOf = ReadonlyMap<string, string> | ((chunkId: string) => string | undefined);

export type WithDocument<T> = T & { documentId: string };

function lookup(documentOf: DocumentOf, chunkId: string): string | undefined {
  return typeof documentOf === "function" ? documentOf(chunkId) : documentOf.get(chunkId);
}

/** Stable sort by score, best first; the input order breaks ties. */
function byScore<T extends ScoredId>(hits: readonly T[]): T[] {
  return hits
    .map((hit, index) => ({ hit, index }))
    .sort((a, b) => b.hit.score - a.hit.score || a.index - b.index)
    .map((x) => x.hit);
}

/**
 * Keep each document's best-scored chunk hit (the first one on equal scores), ordered by score,
 * best first. Chunks the map does not know are dropped: they were deleted between candidate
 * generation and this lookup, and a hit without a document cannot be shown.
 */
export function collapseByDocument<T extends ScoredId>(hits: readonly T[], documentOf: DocumentOf): WithDocument<T>[] {
  const seen = new Set<string>();
  const out: WithDocument<T>[] = [];
  for (const hit of byScore(hits)) {
    const documentId = lookup(documentOf, hit.id);
    if (documentId === undefined || seen.has(documentId)) continue;
    seen.add(documentId);
    out.push({ ...hit, documentId });
  }
  return out;
}

/**
 * Keep at most `max` hits per document, preserving the input order (callers pass hits ranked
 * best first, so each document keeps its best chunks). `max` < 1 keeps nothing.
 */
export function limitPerDocument<T extends { documentId: string }>(hits: readonly T[], max: number): T[] {
  const counts = new Map<string, number>();
  const out: T[] = [];
  for (const hit of hits) {
    const n = counts.get(hit.documentId) ?? 0;
    if (n >= max) continue;
    counts.set(hit.documentId, n + 1);
    out.push(hit);
  }
  return out;
}
