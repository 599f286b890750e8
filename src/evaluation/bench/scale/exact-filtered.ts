// The filter bench's exact vector rankings: per query, the best FUSION_DEPTH chunks of the whole
// tenant and of each filter's documents (BENCH_FILTERS' predicates on the metadata the loader
// dealt), by a full scan in JavaScript. Deep enough to fuse: the exact hybrid top 10 is the fusion
// of exact lists cut where the engine cuts its candidate lists (measure-filters.ts).
import type { DocRecord, BenchQuery } from "./loader.js";
import type { VectorSource } from "./vector-source.js";
import { scanExact, TopK } from "./exact.js";
import { BENCH_FILTERS } from "./filters.js";

/** the engine's candidates per retriever (DEFAULT_ENGINE_SETTINGS.depth) */
export const FUSION_DEPTH = 100;

/** a ranked list: "<document id>#<position>" keys with their scores, best first */
export interface ExactList {
  keys: string[];
  scores: number[];
}

/** per query number: [unfiltered, filter 0, filter 1, ...] */
export type FilteredVectorTruth = Record<number, ExactList[]>;

export function exactFilteredVectors(docs: DocRecord[], queries: BenchQuery[], vectors: VectorSource, chunks: number): FilteredVectorTruth {
  // whether each document passes each filter (index 0: no filter), once per document
  const passes = new Map(docs.map((d) => [d, [true, ...BENCH_FILTERS.map((f) => d.metadata !== null && f.holds(d.metadata))]]));
  const scanned = scanExact(
    docs,
    queries,
    vectors,
    chunks,
    "exact filtered top 100",
    () => [null, ...BENCH_FILTERS].map(() => new TopK(FUSION_DEPTH)),
    (lists, key, s, d) => {
      const p = passes.get(d)!;
      for (let i = 0; i < p.length; i++) if (p[i]) lists[i].offer(key, s);
    },
  );
  const out: FilteredVectorTruth = {};
  for (const { q, state } of scanned) out[q.q] = state.map((t) => ({ keys: t.keys, scores: t.scores }));
  return out;
}
