// Search over a tenant's chunks in SQLite: lexical (the in-memory BM25 indexes), vector (an ANN
// graph when one is open, else exact over sqlite-vec), plus the embedding backfill and the
// hydration of hits, which live in chunk-embeddings.ts and chunk-hydration.ts.
import type { DB } from "../db.js";
import type { Scored } from "../../content-types.js";
import type { ChunkSearch, VectorStore } from "../../content-store.js";
import { vectorTable } from "./json.js";
import { vectorBytes } from "./index-entries.js";
import { backfillChunkTerms, LexicalIndexes } from "./lexical-index.js";
import type { VectorIndexes } from "./vector-indexes.js";
import { embeddingMethods } from "./chunk-embeddings.js";
import { hydrationMethods } from "./chunk-hydration.js";
import { filterScope, type FilterScope } from "./filter-scope.js";
import { VectorCache } from "./vector-cache.js";
import { FilterTables } from "./filter-table.js";
import { facetCounts } from "./facets.js";

type SearchMethods = ChunkSearch & VectorStore;

export interface SearchOptions {
  /** filtered vector searches over fewer chunks than this scan them exactly (default FILTER_EXACT_BELOW) */
  filterExactBelow?: number;
}

export function searchMethods(db: DB, vectors: VectorIndexes, opts: SearchOptions = {}): SearchMethods {
  // chunk terms first: the lexical indexes read them
  backfillChunkTerms(db);
  const lexical = new LexicalIndexes(db);
  const tables = new FilterTables(db);
  return {
    warmUp: () => lexical.warm(),
    async lexicalSearch(tenantId, sourceIds, query, limit, w, filter) {
      if (!filter) return lexical.search(tenantId, sourceIds, query, limit, w);
      if (sourceIds.length === 0 || limit <= 0) return [];
      return lexical.search(tenantId, sourceIds, query, limit, w, filterScope(tables, tenantId, sourceIds, filter));
    },
    async lexicalTerms(tenantId, lookup) {
      return lexical.terms(tenantId, lookup);
    },
    async facetCounts(tenantId, sourceIds, matched, fields, cap) {
      if (sourceIds.length === 0 || fields.length === 0) return fields.map(() => []);
      const accept = matched.filter && filterScope(tables, tenantId, sourceIds, matched.filter);
      const chunks = matched.query ? lexical.matching(tenantId, sourceIds, matched.query, accept) : [];
      return facetCounts(tables, tenantId, chunks, matched.documentIds, fields, cap);
    },
    ...vectorSearchMethods(db, vectors, tables, opts.filterExactBelow ?? FILTER_EXACT_BELOW),
    ...embeddingMethods(db, vectors),
    ...hydrationMethods(db),
  };
}

function vectorSearchMethods(db: DB, vectors: VectorIndexes, tables: FilterTables, exactBelow: number): Pick<SearchMethods, "vectorSearch" | "vectorIndexStatus"> {
  const cache = new VectorCache();
  return {
    async vectorSearch(indexName, tenantId, sourceIds, vector, k, filter) {
      if (sourceIds.length === 0) return [];
      if (filter) return filteredVectorSearch(db, vectors, { indexName, tenantId, sourceIds, vector, k }, filterScope(tables, tenantId, sourceIds, filter), { exactBelow, cache });
      return unfilteredVectorSearch(db, vectors, indexName, tenantId, sourceIds, vector, k);
    },
    async vectorIndexStatus(indexName) {
      return vectors.status(indexName) ?? { kind: "exact (sqlite-vec)", partitions: 0, vectors: 0, building: 0, behind: 0 };
    },
  };
}

/**
 * filtered sets of fewer chunks than this are scanned exactly: vec0 reads a vector by key in
 * ~0.1 ms (vector-cache.ts keeps the last ones read), while the graphs return 4,096 neighbours
 * in a few ms (docs/decisions.md, "Filters in memory")
 */
export const FILTER_EXACT_BELOW = 500;

interface VectorQuery {
  indexName: string;
  tenantId: string;
  sourceIds: string[];
  vector: Float32Array;
  k: number;
}

/**
 * The k nearest chunks of a filtered set. A small set is scanned exactly. A large one walks the
 * graphs for ever more neighbours until k of them pass the filter: when the n nearest overall
 * hold k that pass, those k are the nearest that pass (any other lies beyond the n), so this is
 * the top k of the filtered set up to the graph's own recall, not a filtered top k. The first n
 * is where k are expected to pass given the filter's share of the chunks (with a margin), so a
 * 10 % filter asks once for ~1,500 rather than 400, then 1,600. usearch's JavaScript binding
 * takes no filter into its walk (docs/decisions.md, "Filters").
 */
function filteredVectorSearch(db: DB, vectors: VectorIndexes, q: VectorQuery, scope: FilterScope, o: { exactBelow: number; cache: VectorCache }): Scored[] {
  if (scope.size === 0 || q.k <= 0) return [];
  const exact = () => o.cache.nearest(db, q.indexName, q.tenantId, scope.chunkIds(), q.vector, q.k);
  if (scope.size < o.exactBelow || !vectors.get(q.indexName)) return exact();
  const expected = Math.ceil((q.k * OVERFETCH_MARGIN * scope.total) / scope.size);
  // so few pass that the graphs' longest answer is not expected to hold k of them
  if (expected > OVERFETCH_MAX) return exact();
  for (let n = Math.min(Math.max(expected, q.k), OVERFETCH_MAX); ; n = Math.min(n * 4, OVERFETCH_MAX)) {
    const near = unfilteredVectorSearch(db, vectors, q.indexName, q.tenantId, q.sourceIds, q.vector, n);
    const passing = near.filter((h) => scope.has(Number(h.chunkId)));
    if (passing.length >= q.k) return passing.slice(0, q.k);
    if (n >= OVERFETCH_MAX) break;
  }
  // the filter passes too few of the nearest: read its set whole
  return exact();
}

/** how many more neighbours than the filter's share predicts a filtered search asks for first */
const OVERFETCH_MARGIN = 1.5;
/**
 * neighbours a filtered search asks the graphs for before it scans the filtered set instead
 * (vec0's k limit; usearch's cost also grows faster than linearly past a few thousand)
 */
const OVERFETCH_MAX = 4096;

function unfilteredVectorSearch(db: DB, vectors: VectorIndexes, indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Scored[] {
  const ann = vectors.get(indexName);
  if (!ann) return exactSearch(db, indexName, tenantId, sourceIds, vector, k);
  const { hits, exactSources } = ann.search(tenantId, sourceIds, vector, k);
  // an i8 graph only finds the candidates, their scores come from the exact vectors; f32 and
  // f16 distances are used as they are (f16 within 3e-5 of exact, docs/decisions.md)
  const exact = ann.scoresFromGraph ? null : ann.exactDistances(hits.map((h) => h.chunkId), vector);
  const scored: Scored[] = [];
  for (const h of hits) {
    const d = exact ? exact.get(h.chunkId) : h.distance;
    if (d !== undefined) scored.push({ chunkId: String(h.chunkId), score: 1 - d });
  }
  if (exactSources.length) scored.push(...exactSearch(db, indexName, tenantId, exactSources, vector, k));
  return scored.sort((a, b) => b.score - a.score).slice(0, k);
}

/** brute force over vec0: tenant is the partition key and the source a metadata column, so the
 * filter runs inside the scan (the k nearest of these sources, not a filtered global top-k) */
function exactSearch(db: DB, indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Scored[] {
  const rows = db
    .prepare(
      `SELECT chunk_id AS chunkId, distance FROM ${vectorTable(indexName)}
       WHERE embedding MATCH ? AND k = ? AND tenant_id = ? AND data_source_id IN (SELECT value FROM json_each(?))`,
    )
    .all(vectorBytes(vector), Math.min(k, 4096), tenantId, JSON.stringify(sourceIds)) as { chunkId: number; distance: number }[];
  return rows.map((r) => ({ chunkId: String(r.chunkId), score: 1 - r.distance }));
}
