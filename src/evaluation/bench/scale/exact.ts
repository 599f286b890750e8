// The exact top 10 of every query, computed by the bench itself (a full scan in JavaScript over
// the vectors regenerated document by document), so recall is measured against the truth and not
// against whatever the store's vector search does.
import type { DocRecord, BenchQuery } from "./loader.js";
import type { VectorSource } from "./vector-source.js";
import { dot } from "./vectors.js";
import { createProgress } from "./progress.js";

export const RECALL_K = 10;

/** a running top k: keys with scores, best first */
export class TopK {
  keys: string[] = [];
  scores: number[] = [];
  constructor(readonly k: number) {}
  offer(key: string, score: number): void {
    if (this.scores.length === this.k && score <= this.scores[this.k - 1]) return;
    let i = this.scores.length;
    while (i > 0 && this.scores[i - 1] < score) i--;
    this.scores.splice(i, 0, score);
    this.keys.splice(i, 0, key);
    if (this.scores.length > this.k) {
      this.scores.pop();
      this.keys.pop();
    }
  }
}

export interface ExactTruth {
  /** per query number: top 10 keys in the "all" collection and in the "side" collection */
  all: Map<number, string[]>;
  side: Map<number, string[]>;
}

/**
 * One pass over every loaded chunk's vector: each query of the chunk's tenant gets `offer(state,
 * key, score, document)`; returns each query's state. The exact rankings build on it.
 */
export function scanExact<S>(
  docs: DocRecord[],
  queries: BenchQuery[],
  vectors: VectorSource,
  chunks: number,
  label: string,
  make: (q: BenchQuery) => S,
  offer: (state: S, key: string, score: number, d: DocRecord) => void,
): { q: BenchQuery; state: S }[] {
  const byTenant = new Map<number, { q: BenchQuery; state: S }[]>();
  for (const q of queries) {
    const list = byTenant.get(q.tenant) ?? [];
    list.push({ q, state: make(q) });
    byTenant.set(q.tenant, list);
  }
  const progress = createProgress(label, chunks);
  let done = 0;
  for (const d of docs) {
    const list = byTenant.get(d.tenant);
    done += d.count;
    if (!list) continue;
    const vs = vectors.again(d.ordinal, d.source, d.count, d.vectors);
    vs.forEach((v, pos) => {
      const key = `${d.documentId}#${pos}`;
      for (const e of list) offer(e.state, key, dot(e.q.vector, v), d);
    });
    progress.update(done);
  }
  progress.finish();
  return [...byTenant.values()].flat();
}

export function exactTopK(docs: DocRecord[], queries: BenchQuery[], vectors: VectorSource, chunks: number): ExactTruth {
  const scanned = scanExact(
    docs,
    queries,
    vectors,
    chunks,
    "exact top 10",
    () => ({ all: new TopK(RECALL_K), side: new TopK(RECALL_K) }),
    (e, key, s, d) => {
      e.all.offer(key, s);
      if (d.side) e.side.offer(key, s);
    },
  );
  const truth: ExactTruth = { all: new Map(), side: new Map() };
  for (const { q, state } of scanned) {
    truth.all.set(q.q, state.all.keys);
    truth.side.set(q.q, state.side.keys);
  }
  return truth;
}

/** |found ∩ truth| / |truth|, over the first k of each */
export function recallAt(found: string[], truth: string[], k = RECALL_K): number {
  const t = new Set(truth.slice(0, k));
  if (t.size === 0) return 1;
  return found.slice(0, k).filter((x) => t.has(x)).length / t.size;
}
