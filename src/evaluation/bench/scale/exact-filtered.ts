// The filter bench's exact vector rankings: per query, the best FUSION_DEPTH chunks of the whole
// tenant and of each filter's documents (BENCH_FILTERS' predicates on the metadata the loader
// dealt), by a full scan in JavaScript. Deep enough to fuse: the exact hybrid top 10 is the fusion
// of exact lists cut where the engine cuts its candidate lists (measure-filters.ts).
import type { DocRecord, BenchQuery } from "./loader.js";
import type { VectorSource } from "./vector-source.js";
import { dot } from "./vectors.js";
import { TopK } from "./exact.js";
import { BENCH_FILTERS } from "./filters.js";
import { createProgress } from "./progress.js";

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
  const byTenant = new Map<number, { q: BenchQuery; lists: TopK[] }[]>();
  for (const q of queries) {
    const list = byTenant.get(q.tenant) ?? [];
    list.push({ q, lists: [null, ...BENCH_FILTERS].map(() => new TopK(FUSION_DEPTH)) });
    byTenant.set(q.tenant, list);
  }
  const progress = createProgress("exact filtered top 100", chunks);
  let done = 0;
  for (const d of docs) {
    const list = byTenant.get(d.tenant);
    done += d.count;
    if (!list) continue;
    const passes = [true, ...BENCH_FILTERS.map((f) => d.metadata !== null && f.holds(d.metadata))];
    const vs = vectors.again(d.ordinal, d.source, d.count, d.vectors);
    vs.forEach((v, pos) => {
      const key = `${d.documentId}#${pos}`;
      for (const e of list) {
        const s = dot(e.q.vector, v);
        for (let i = 0; i < passes.length; i++) if (passes[i]) e.lists[i].offer(key, s);
      }
    });
    progress.update(done);
  }
  progress.finish();
  const out: FilteredVectorTruth = {};
  for (const list of byTenant.values()) for (const e of list) out[e.q.q] = e.lists.map((t) => ({ keys: t.keys, scores: t.scores }));
  return out;
}
