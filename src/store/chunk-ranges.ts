// Turns position ranges into the (document, position) pairs both stores look chunks up by: that
// pair is each store's unique chunk index, so the lookup stays an index probe per pair however
// the ranges overlap.
import type { ChunkRange } from "./content-types.js";

/** A guard against a caller passing unbounded ranges (/retrieve asks for at most 50 x 5). */
const MAX_POSITIONS = 10_000;

/** The distinct pairs covered by the ranges, in no particular order; empty and negative parts dropped. */
export function rangePositions(ranges: readonly ChunkRange[]): { documentIds: string[]; positions: number[] } {
  const seen = new Set<string>();
  const documentIds: string[] = [];
  const positions: number[] = [];
  for (const r of ranges) {
    for (let p = Math.max(0, Math.ceil(r.fromPosition)); p <= r.toPosition; p++) {
      const key = `${p}\u0000${r.documentId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      documentIds.push(r.documentId);
      positions.push(p);
      if (positions.length > MAX_POSITIONS) throw new RangeError(`chunk ranges cover more than ${MAX_POSITIONS} positions`);
    }
  }
  return { documentIds, positions };
}
