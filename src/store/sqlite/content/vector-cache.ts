// The vectors a filtered exact scan read last, in memory, up to a byte budget (least recently used
// out first): vec0 reads one vector by key in ~0.1 ms (it walks the chunk's blob), so a small
// filtered set of 2,000 chunks costs ~200 ms to score from disk and ~2 ms from here. A chunk's
// vector never changes (a re-indexed document gets new chunk ids, and ids are never reused), so
// an entry can never be stale; a deleted chunk's entry is simply never asked for again.
import type { DB } from "../db.js";
import { vectorTable } from "./json.js";
import { LruCache } from "../../../lru.js";

/** bytes of vectors kept across all indexes (16,384 vectors of 512 dimensions) */
export const VECTOR_CACHE_BYTES = 32 * 1024 * 1024;

type Scored = { chunkId: string; score: number };

export class VectorCache {
  private readonly entries: LruCache<string, Float32Array>;

  constructor(private readonly budget = VECTOR_CACHE_BYTES) {
    this.entries = new LruCache(Infinity, budget);
  }

  private get(scope: string, id: number): Float32Array | undefined {
    return this.entries.get(`${scope}\u0000${id}`);
  }

  private put(scope: string, id: number, v: Float32Array): void {
    if (v.byteLength > this.budget) return;
    const key = `${scope}\u0000${id}`;
    this.entries.set(key, v);
    this.entries.weigh(key, v.byteLength);
  }

  /**
   * The k nearest of these chunks by cosine distance, exactly: cached vectors scored here, the
   * others read from vec0 (and cached). Ties by chunk id, as the SQL scan ordered them.
   */
  nearest(db: DB, indexName: string, tenantId: string, ids: number[], vector: Float32Array, k: number): Scored[] {
    // keyed by tenant too: callers pass their tenant's ids only, and a slip would still not cross
    const scope = `${indexName}\u0000${tenantId}`;
    const found: { id: number; v: Float32Array }[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const v = this.get(scope, id);
      if (v) found.push({ id, v });
      else missing.push(id);
    }
    if (missing.length > 0) {
      const rows = db
        .prepare(`SELECT chunk_id AS id, embedding AS e FROM ${vectorTable(indexName)} WHERE chunk_id IN (SELECT value FROM json_each(?)) AND tenant_id = ?`)
        .all(JSON.stringify(missing), tenantId) as { id: number; e: Buffer }[];
      for (const r of rows) {
        // a copy: the Buffer may be a view of a pooled allocation, unaligned for floats
        const v = new Float32Array(new Uint8Array(r.e).buffer);
        this.put(scope, r.id, v);
        found.push({ id: r.id, v });
      }
    }
    let qq = 0;
    for (let i = 0; i < vector.length; i++) qq += vector[i]! * vector[i]!;
    const scored = found.map(({ id, v }) => {
      let dot = 0;
      let vv = 0;
      for (let i = 0; i < v.length; i++) {
        dot += v[i]! * vector[i]!;
        vv += v[i]! * v[i]!;
      }
      const norms = Math.sqrt(qq * vv);
      return { id, distance: norms > 0 ? 1 - dot / norms : 1 };
    });
    scored.sort((a, b) => a.distance - b.distance || a.id - b.id);
    return scored.slice(0, k).map((s) => ({ chunkId: String(s.id), score: 1 - s.distance }));
  }

  memoryBytes(): number {
    return this.entries.totalWeight;
  }
}
