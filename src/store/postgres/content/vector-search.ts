// Vector search with pgvector. A query's scope (the tenant's sources in the collection, and the
// chunks of documents passing its filter) is applied inside the scan: small scopes are searched
// exactly (every vector of the scope, sorted by distance); larger ones walk the HNSW graph with
// pgvector 0.8's iterative scan, which keeps walking until k rows pass the scope's conditions.
// The graph is shared by every tenant of the table, so the walk meets and discards the other
// tenants' rows: a scope that is a small share of a large table is searched exactly even above
// exactBelow (graphPays).
import type { Pool } from "../db.js";
import type { Scored } from "../../content-types.js";
import type { ChunkSearch } from "../../content-store.js";
import { vectorTable } from "../../json.js";
import { HNSW_MAX_DIM, vectorLiteral } from "./pgvector.js";
import type { VectorColumns, VectorType } from "./vector-tables.js";
import type { SearchFilter } from "../../../search/filter/types.js";
import { filteredChunksSql, postgresFilter } from "./filter-sql.js";
import { isCitus, rowsPerShard } from "../distribution.js";

export interface VectorSearchOptions {
  /** scopes with fewer vectors than this are searched exactly (default 20,000) */
  exactBelow?: number;
  /** scopes with at least this many vectors always walk the graph (default 200,000) */
  graphFrom?: number;
  /** HNSW candidate list per query (hnsw.ef_search; default max(100, 4k)) */
  efSearch?: number;
  /** cap on tuples an iterative scan visits (hnsw.max_scan_tuples; default 200,000) */
  maxScanTuples?: number;
}

/** one search: the vector table, the tenant, its sources in scope, the query vector and k */
interface Query {
  t: string;
  /** the column's element type: the query vector is cast to it (an index on halfvec is used only for halfvec) */
  type: VectorType;
  tenantId: string;
  sourceIds: string[];
  vector: Float32Array;
  k: number;
  /** the filter's condition on the vector rows (its parameters from $5: filterCondition), "" without one */
  where: string;
  /** the common table expression the condition reads ("allowed AS MATERIALIZED (...), "), "" without a filter */
  cte: string;
  params: unknown[];
}

/**
 * A filter as a condition on the rows of a vector table, in a statement whose $1 is the tenant
 * and $2 the sources; its own parameters are numbered from `firstParam`. The filtered chunk ids
 * are materialised first: inlined, the planner ran the document test once per vector row
 * (seconds for a hundred rows).
 */
function filterCondition(filter: SearchFilter | undefined, firstParam: number): { where: string; cte: string; params: unknown[] } {
  if (!filter) return { where: "", cte: "", params: [] };
  const f = postgresFilter(filter, firstParam);
  return { cte: `allowed AS MATERIALIZED (${filteredChunksSql(f.sql, "$1", "$2")}), `, where: " AND chunk_id IN (SELECT id FROM allowed)", params: f.params };
}

const SCOPE_TTL_MS = 10_000;
/** distinct scopes remembered per process before the size cache starts over */
const SCOPE_CACHE_MAX = 10_000;
/** hnsw.ef_search's cap (graphSearch) */
const EF_MAX = 1000;
/**
 * What one step of the graph walk costs in rows of an exact scan. A walk finds k of the scope's
 * rows after about ef / share candidates (share: the scope's part of the table), each a heap
 * visit and its neighbours' distances; a scan reads the scope's rows in order. Measured on this
 * project's 2-core machine, 512-d halfvec, a tenant of 20,000 among 200,000 (share 10 %): walk
 * 5.5 ms at ef 100 and 32 ms at ef 400, scan 16 ms; so a step costs ~7 us, a scanned row ~0.8 us.
 */
const GRAPH_STEP_ROWS = 9;

const efOf = (opts: VectorSearchOptions, k: number) => Math.min(EF_MAX, opts.efSearch ?? Math.max(100, 4 * k));

/**
 * Does walking the graph cost less than scanning the scope: n rows of a table of `rows`, ef the
 * walk's candidate list. The walk visits about ef * rows / n candidates; the scan n rows.
 */
export function graphPays(n: number, rows: number, ef: number, exactBelow: number, graphFrom: number): boolean {
  if (n < exactBelow) return false;
  if (n >= graphFrom) return true;
  return n * n >= GRAPH_STEP_ROWS * ef * rows;
}

/** the scope count that decides graphPays for any ef: the side of every threshold up to EF_MAX */
const countLimit = (rows: number, exactBelow: number, graphFrom: number) =>
  Math.min(graphFrom, Math.max(exactBelow, Math.ceil(Math.sqrt(GRAPH_STEP_ROWS * EF_MAX * rows))));

// A scope's size changes only as its sources are ingested, and a stale size only moves a scope
// near a threshold between two correct scans: counted once per SCOPE_TTL_MS, not per query
// (a round trip saved on every search). Counting stops at countLimit: only the side matters.
// The table's rows are the planner's estimate (on Citus the shard's: distribution.ts rowsPerShard).
function scopeSizer(pool: Pool, exactBelow: number, graphFrom: number) {
  const scopeSizes = new Map<string, { n: number; rows: number; at: number }>();
  const tableRows = new Map<string, { rows: number; at: number }>();
  const rowsOf = async (t: string, now: number): Promise<number> => {
    const known = tableRows.get(t);
    if (known && now - known.at < SCOPE_TTL_MS) return known.rows;
    const rows = await rowsPerShard(pool, t);
    tableRows.set(t, { rows, at: now });
    return rows;
  };
  return async function scopeSize(t: string, tenantId: string, sourceIds: string[], filter?: SearchFilter): Promise<{ n: number; rows: number }> {
    const key = `${t}\u0000${tenantId}\u0000${[...sourceIds].sort().join("\u0000")}\u0000${filter ? JSON.stringify(filter) : ""}`;
    const now = Date.now();
    const known = scopeSizes.get(key);
    if (known && now - known.at < SCOPE_TTL_MS) return known;
    const rows = await rowsOf(t, now);
    const f = filterCondition(filter, 4);
    const r = await pool.query<{ n: number }>(
      `WITH ${f.cte}scope AS (SELECT 1 FROM ${t} WHERE tenant_id = $1 AND data_source_id = ANY($2::text[])${f.where} LIMIT $3)
       SELECT count(*)::int AS n FROM scope`,
      [tenantId, sourceIds, countLimit(rows, exactBelow, graphFrom), ...f.params],
    );
    if (scopeSizes.size >= SCOPE_CACHE_MAX) scopeSizes.clear();
    const size = { n: r.rows[0]!.n, rows, at: now };
    scopeSizes.set(key, size);
    return size;
  };
}

/** Every vector of the scope, sorted by distance: one statement, no transaction. */
async function exactSearch(pool: Pool, q: Query): Promise<Scored[]> {
  // OFFSET 0 keeps the inner scan an unordered scan of the scope (the scope B-tree or the
  // table), so the planner cannot turn the ORDER BY into a walk of the HNSW graph
  const r = await pool.query<{ id: string; d: number }>(
    `${q.cte ? `WITH ${q.cte.slice(0, -2)} ` : ""}SELECT chunk_id::text AS id, d FROM (
       SELECT chunk_id, embedding <=> $3::${q.type} AS d FROM ${q.t}
       WHERE tenant_id = $1 AND data_source_id = ANY($2::text[])${q.where} OFFSET 0) s
     ORDER BY d, chunk_id LIMIT $4`,
    [q.tenantId, q.sourceIds, vectorLiteral(q.vector), q.k, ...q.params],
  );
  return r.rows.map((x) => ({ chunkId: x.id, score: 1 - x.d }));
}

/**
 * The HNSW graph with pgvector's iterative scan, which keeps going until k rows pass the scope
 * filter. `citus`: the walk runs on a worker, which must be sent the settings (below).
 */
async function graphSearch(pool: Pool, q: Query, opts: VectorSearchOptions, maxScan: number, citus: boolean): Promise<Scored[]> {
  const ef = efOf(opts, q.k);
  const c = await pool.connect();
  try {
    // one round trip for the transaction and its settings (a simple-protocol multi-statement).
    // Sequential, bitmap and sort plans off: otherwise the planner, counting the scope's rows,
    // often reads the scope B-tree and sorts (an exact scan of a large scope) instead of
    // walking the graph, which is the only plan that yields rows in distance order unsorted.
    // Citus sends a SET LOCAL to the workers only when told to: without it the worker walked
    // the graph with its defaults (ef_search 40, no iterative scan), and a k of 1000 or a
    // selective filter came back with at most 40 candidates' worth of rows (test/citus/graph-settings).
    // JIT off here too: the pool turns it off for its own sessions only, and a worker, given the
    // plans switched off (their cost counts as 1e10), compiled each walk with JIT: 136 of 230 ms
    // (EXPLAIN ANALYZE on a 4 x 20,000 cluster, 2026-11-29).
    await c.query(
      `BEGIN; ${citus ? "SET LOCAL citus.propagate_set_commands = 'local'; " : ""}SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${ef};
       SET LOCAL hnsw.max_scan_tuples = ${maxScan}; SET LOCAL enable_bitmapscan = off;
       SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off; SET LOCAL jit = off`,
    );
    // relaxed_order may return rows slightly out of order: the outer query sorts the k found
    const r = await c.query<{ id: string; d: number }>(
      `WITH ${q.cte}hits AS MATERIALIZED (
         SELECT chunk_id, embedding <=> $3::${q.type} AS d FROM ${q.t}
         WHERE tenant_id = $1 AND data_source_id = ANY($2::text[])${q.where} ORDER BY embedding <=> $3::${q.type} LIMIT $4)
       SELECT chunk_id::text AS id, d FROM hits ORDER BY d, chunk_id`,
      [q.tenantId, q.sourceIds, vectorLiteral(q.vector), q.k, ...q.params],
    );
    await c.query("COMMIT");
    return r.rows.map((x) => ({ chunkId: x.id, score: 1 - x.d }));
  } catch (err) {
    await c.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

/** `exactBelow` arrives resolved: the index status reports the same threshold. */
export function vectorSearchMethods(pool: Pool, columns: VectorColumns, opts: VectorSearchOptions & { exactBelow: number }): Pick<ChunkSearch, "vectorSearch"> {
  const maxScan = opts.maxScanTuples ?? 200_000;
  const graphFrom = Math.max(opts.exactBelow, opts.graphFrom ?? 200_000);
  const scopeSize = scopeSizer(pool, opts.exactBelow, graphFrom);
  // asked once per process: the extension is created before the store is used (migrate)
  let citus: Promise<boolean> | null = null;
  return {
    async vectorSearch(indexName, tenantId, sourceIds, vector, k, filter) {
      if (sourceIds.length === 0 || k <= 0) return [];
      const t = vectorTable(indexName);
      const col = await columns.of(indexName);
      if (col === null) return [];
      const q: Query = { t, type: col.type, tenantId, sourceIds, vector, k, ...filterCondition(filter, 5) };
      const size = col.dimension <= HNSW_MAX_DIM ? await scopeSize(t, tenantId, sourceIds, filter) : null;
      const graph = size !== null && graphPays(size.n, size.rows, efOf(opts, k), opts.exactBelow, graphFrom);
      if (!graph) return exactSearch(pool, q);
      citus ??= isCitus(pool).catch((err) => {
        citus = null; // asked again by the next search
        throw err;
      });
      return graphSearch(pool, q, opts, maxScan, await citus);
    },
  };
}
