// The filter and facet bench (`--filters`), in the measuring process: per filter (and none), the
// recall@10 of filtered lexical, vector and hybrid search against the exact filtered rankings,
// the latency of filtered hybrid beside unfiltered hybrid (interleaved query by query, so load on
// the machine falls on both alike), and the facet counts of three fields.
import type { Runtime } from "../../../runtime.js";
import { facetCounts } from "../../../search/facet-counts.js";
import { lexicalQueryOf } from "../../../search/lexical/analyze-query.js";
import { queryAnalyzer } from "../../../search/lexical/languages.js";
import { parseFacets } from "../../../search/filter/facets.js";
import { parseFilter } from "../../../search/filter/parse.js";
import { searchInProcess, type BenchTenant, type Mode } from "./adapter.js";
import { recallAt } from "./exact.js";
import type { FilteredVectorTruth } from "./exact-filtered.js";
import { exactHybridTop, exactLexicalLists } from "./filter-reference.js";
import { BENCH_FACETS, BENCH_FILTERS } from "./filters.js";
import { summarize, type Latency } from "./measure.js";
import { createProgress } from "./progress.js";

export interface FilterJob {
  /** per filter, the ids of the documents it selects */
  passes: string[][];
  /** per filter, the share of the tenant's chunks it selects */
  shares: number[];
  vectorTruth: FilteredVectorTruth;
  tenantChunks: number;
}

export interface FilterRow {
  filter: string;
  share: number;
  recall_at_10: Record<Mode, number | null>;
  hybrid: Latency;
}

export interface FilterMeasured {
  rows: FilterRow[];
  recall_queries: number;
  facets: { fields: string[]; direct: Latency; search: Latency; search_without: Latency; mean_matched_documents: number };
}

type Query = { q: number; tenant: number; text: string };
const MODES: Mode[] = ["lexical", "vector", "hybrid"];
const WARMUP = 10;

/** recall of the three modes under each filter (index 0: none) on the queries with an exact truth */
async function filteredRecall(rt: Runtime, tenants: BenchTenant[], queries: Query[], job: FilterJob): Promise<Record<Mode, number>[]> {
  const passes = [null, ...job.passes.map((p) => new Set(p))];
  const sums = passes.map(() => ({ lexical: 0, vector: 0, hybrid: 0 }));
  const progress = createProgress("filtered recall", queries.length);
  for (const [n, q] of queries.entries()) {
    const t = tenants[q.tenant];
    const lexical = await exactLexicalLists(rt, t, q.text, passes, job.tenantChunks);
    const vector = job.vectorTruth[q.q];
    for (let i = 0; i < passes.length; i++) {
      const filter = i === 0 ? {} : { filter: BENCH_FILTERS[i - 1].json };
      const truth: Record<Mode, string[]> = { lexical: lexical[i].keys, vector: vector[i].keys, hybrid: exactHybridTop(lexical[i], vector[i]) };
      for (const mode of MODES) {
        const found = await searchInProcess(rt, t, t.allCollectionId, q.text, mode, 10, filter);
        sums[i][mode] += recallAt(found.keys, truth[mode]);
      }
    }
    progress.update(n + 1);
  }
  progress.finish();
  return sums.map((s) => ({ lexical: s.lexical / queries.length, vector: s.vector / queries.length, hybrid: s.hybrid / queries.length }));
}

/** hybrid latency per filter (index 0: none), the variants of one query run back to back in rotating order */
async function filteredLatency(rt: Runtime, tenants: BenchTenant[], queries: Query[]): Promise<Latency[]> {
  const variants = [undefined, ...BENCH_FILTERS.map((f) => f.json)];
  const run = (q: Query, v: number) => searchInProcess(rt, tenants[q.tenant], tenants[q.tenant].allCollectionId, q.text, "hybrid", 10, variants[v] ? { filter: variants[v] } : {});
  for (const q of queries.slice(0, WARMUP)) for (let v = 0; v < variants.length; v++) await run(q, v);
  const samples = variants.map(() => [] as number[]);
  const progress = createProgress("filtered latency", queries.length);
  for (const [n, q] of queries.entries()) {
    for (let k = 0; k < variants.length; k++) {
      const v = (n + k) % variants.length;
      const t0 = performance.now();
      await run(q, v);
      samples[v].push(performance.now() - t0);
    }
    progress.update(n + 1);
  }
  progress.finish();
  return samples.map((s) => summarize(s));
}

/** facets of three fields over each query's matched set: the counting alone, and a search with and without them */
async function facetLatency(rt: Runtime, tenants: BenchTenant[], queries: Query[]): Promise<FilterMeasured["facets"]> {
  const fields = parseFacets(BENCH_FACETS);
  const direct: number[] = [];
  const search: number[] = [];
  const without: number[] = [];
  let matched = 0;
  const progress = createProgress("facets", queries.length);
  for (const [n, q] of queries.entries()) {
    const t = tenants[q.tenant];
    let t0 = performance.now();
    const plain = await searchInProcess(rt, t, t.allCollectionId, q.text, "hybrid");
    without.push(performance.now() - t0);
    t0 = performance.now();
    await searchInProcess(rt, t, t.allCollectionId, q.text, "hybrid", 10, { facets: BENCH_FACETS });
    search.push(performance.now() - t0);
    const documentIds = [...new Set(plain.keys.map((k) => k.slice(0, k.lastIndexOf("#"))))];
    t0 = performance.now();
    const counts = await facetCounts(rt.store.content, t.id, [t.mainSourceId, t.sideSourceId], lexicalQueryOf(q.text, queryAnalyzer(undefined)).lexical, { documentIds }, fields);
    if (n >= WARMUP || queries.length <= WARMUP) direct.push(performance.now() - t0);
    matched += Object.values(counts["metadata.product"] ?? {}).reduce((a, b) => a + b, 0);
    progress.update(n + 1);
  }
  progress.finish();
  return { fields: BENCH_FACETS, direct: summarize(direct), search: summarize(search), search_without: summarize(without), mean_matched_documents: matched / Math.max(1, queries.length) };
}

export async function measureFilters(rt: Runtime, tenants: BenchTenant[], queries: Query[], recallQueries: number, job: FilterJob): Promise<FilterMeasured> {
  for (const f of BENCH_FILTERS) parseFilter(f.json); // a bench filter the API refuses is the bench's bug: fail before measuring
  const withTruth = queries.filter((q) => job.vectorTruth[q.q]).slice(0, recallQueries);
  const recall = await filteredRecall(rt, tenants, withTruth, job);
  const latency = await filteredLatency(rt, tenants, queries);
  const facets = await facetLatency(rt, tenants, queries);
  const names = ["none (whole tenant)", ...BENCH_FILTERS.map((f) => f.name)];
  const rows = names.map((filter, i) => ({ filter, share: i === 0 ? 1 : job.shares[i - 1], recall_at_10: recall[i] ?? { lexical: null, vector: null, hybrid: null }, hybrid: latency[i] }));
  return { rows, recall_queries: withTruth.length, facets };
}
