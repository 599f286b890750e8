// Vectors in pgvector: one table per index name (vec_<name>, its own fixed dimension) with an HNSW
// cosine index over all tenants and a btree on (tenant_id, data_source_id). A query's scope (the
// tenant's sources in the collection) is applied inside the scan: small scopes are searched
// exactly through the btree (every vector of the scope, sorted by distance); larger ones walk the
// HNSW graph with pgvector 0.8's iterative scan, which keeps going until k rows pass the filter.
// A search is one statement (exact) or one transaction of two round trips (graph).
// docs/decisions.md ("PostgreSQL vectors") has the measurements behind the threshold.
import { transaction, type Client, type Pool } from "../db.js";
import type { ChunkRow, ContentStore, Scored, VectorIndexStatus } from "../../content-types.js";
import { vectorTable } from "../../json.js";
import { CHUNK_COLS, bigintIds, toChunk, type RawChunk } from "./rows.js";

export interface VectorSearchOptions {
  /** scopes with fewer vectors than this are searched exactly (default 20,000) */
  exactBelow?: number;
  /** HNSW candidate list per query (hnsw.ef_search; default max(100, 4k)) */
  efSearch?: number;
  /** cap on tuples an iterative scan visits (hnsw.max_scan_tuples; default 200,000) */
  maxScanTuples?: number;
}

/** pgvector's HNSW indexes `vector` up to 2,000 dimensions; beyond, searches stay exact */
const HNSW_MAX_DIM = 2000;
const HNSW_M = 16;
const HNSW_EF_CONSTRUCTION = 64;
const ENSURE_LOCK = 50_003;
const SCOPE_TTL_MS = 10_000;
/** distinct scopes remembered per process before the size cache starts over */
const SCOPE_CACHE_MAX = 10_000;

export { vectorTable };

export const vectorLiteral = (v: Float32Array): string => `[${Array.from(v).join(",")}]`;

/** Writes the vectors of newly inserted chunks (ids parallel to values). */
export async function insertVectors(c: Client, indexName: string, tenantId: string, sourceId: string, ids: string[], values: Float32Array[]) {
  await c.query(
    `INSERT INTO ${vectorTable(indexName)} (tenant_id, chunk_id, data_source_id, embedding)
     SELECT $1, x.id, $2, x.v::vector FROM unnest($3::bigint[], $4::text[]) AS x(id, v)`,
    [tenantId, sourceId, ids, values.map(vectorLiteral)],
  );
}

type VectorMethods = Pick<
  ContentStore,
  "ensureVectorIndex" | "unembeddedChunks" | "storeEmbeddings" | "countUnembedded" | "vectorSearch" | "vectorIndexStatus"
>;

async function createVectorTable(c: Client, indexName: string, dimension: number): Promise<void> {
  const t = vectorTable(indexName);
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${t} (
       tenant_id TEXT NOT NULL,
       chunk_id BIGINT NOT NULL,
       data_source_id TEXT NOT NULL,
       embedding vector(${dimension}) NOT NULL,
       PRIMARY KEY (tenant_id, chunk_id),
       FOREIGN KEY (tenant_id, chunk_id) REFERENCES chunks (tenant_id, id) ON DELETE CASCADE
     )`,
  );
  await c.query(`CREATE INDEX IF NOT EXISTS ${t}_scope ON ${t} (tenant_id, data_source_id)`);
  if (dimension <= HNSW_MAX_DIM) {
    await c.query(
      `CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding vector_cosine_ops)
       WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`,
    );
  }
}

export function vectorMethods(pool: Pool, opts: VectorSearchOptions = {}): VectorMethods {
  const exactBelow = opts.exactBelow ?? 20_000;
  const maxScan = opts.maxScanTuples ?? 200_000;
  const dims = new Map<string, number>();

  async function dimensionOf(indexName: string): Promise<number | null> {
    let d = dims.get(indexName);
    if (d === undefined) {
      const r = await pool.query<{ dimension: number }>("SELECT dimension FROM vector_indexes WHERE name = $1", [indexName]);
      if (!r.rows[0]) return null;
      dims.set(indexName, (d = r.rows[0].dimension));
    }
    return d;
  }

  // A scope's size changes only as its sources are ingested, and a stale size only moves a scope
  // near the threshold between two correct scans: counted once per SCOPE_TTL_MS, not per query
  // (a round trip saved on every search).
  const scopeSizes = new Map<string, { n: number; at: number }>();
  async function scopeSize(t: string, tenantId: string, sourceIds: string[]): Promise<number> {
    const key = `${t}\u0000${tenantId}\u0000${[...sourceIds].sort().join("\u0000")}`;
    const now = Date.now();
    const known = scopeSizes.get(key);
    if (known && now - known.at < SCOPE_TTL_MS) return known.n;
    const r = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${t} WHERE tenant_id = $1 AND data_source_id = ANY($2::text[]) LIMIT $3) s`,
      [tenantId, sourceIds, exactBelow],
    );
    if (scopeSizes.size >= SCOPE_CACHE_MAX) scopeSizes.clear();
    scopeSizes.set(key, { n: r.rows[0]!.n, at: now });
    return r.rows[0]!.n;
  }

  /** Every vector of the scope, sorted by distance: one statement, no transaction. */
  async function exactSearch(t: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Promise<Scored[]> {
    // OFFSET 0 keeps the inner scan an unordered scan of the scope (the scope B-tree or the
    // table), so the planner cannot turn the ORDER BY into a walk of the HNSW graph
    const r = await pool.query<{ id: string; d: number }>(
      `SELECT chunk_id::text AS id, d FROM (
         SELECT chunk_id, embedding <=> $3::vector AS d FROM ${t}
         WHERE tenant_id = $1 AND data_source_id = ANY($2::text[]) OFFSET 0) s
       ORDER BY d, chunk_id LIMIT $4`,
      [tenantId, sourceIds, vectorLiteral(vector), k],
    );
    return r.rows.map((x) => ({ chunkId: x.id, score: 1 - x.d }));
  }

  /** The HNSW graph with pgvector's iterative scan, which keeps going until k rows pass the scope filter. */
  async function graphSearch(t: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number): Promise<Scored[]> {
    const ef = Math.min(1000, opts.efSearch ?? Math.max(100, 4 * k));
    const c = await pool.connect();
    try {
      // one round trip for the transaction and its settings (a simple-protocol multi-statement).
      // Sequential, bitmap and sort plans off: otherwise the planner, counting the scope's rows,
      // often reads the scope B-tree and sorts (an exact scan of a large scope) instead of
      // walking the graph, which is the only plan that yields rows in distance order unsorted.
      await c.query(
        `BEGIN; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${ef};
         SET LOCAL hnsw.max_scan_tuples = ${maxScan}; SET LOCAL enable_bitmapscan = off;
         SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`,
      );
      // relaxed_order may return rows slightly out of order: the outer query sorts the k found
      const r = await c.query<{ id: string; d: number }>(
        `WITH hits AS MATERIALIZED (
           SELECT chunk_id, embedding <=> $3::vector AS d FROM ${t}
           WHERE tenant_id = $1 AND data_source_id = ANY($2::text[]) ORDER BY embedding <=> $3::vector LIMIT $4)
         SELECT chunk_id::text AS id, d FROM hits ORDER BY d, chunk_id`,
        [tenantId, sourceIds, vectorLiteral(vector), k],
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

  return {
    async ensureVectorIndex(indexName, dimension) {
      if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16_000) throw new Error(`invalid dimension ${dimension}`);
      await transaction(pool, async (c) => {
        // several processes start together: one creates, the others find it made
        await c.query("SELECT pg_advisory_xact_lock($1)", [ENSURE_LOCK]);
        const r = await c.query<{ dimension: number }>("SELECT dimension FROM vector_indexes WHERE name = $1", [indexName]);
        const known = r.rows[0]?.dimension;
        if (known !== undefined && known !== dimension) {
          throw new Error(`vector index '${indexName}' holds ${known}-dimensional vectors, not ${dimension}`);
        }
        if (known === undefined) {
          await createVectorTable(c, indexName, dimension);
          await c.query("INSERT INTO vector_indexes (name, dimension, created_at) VALUES ($1, $2, $3)", [indexName, dimension, new Date().toISOString()]);
        }
        // chunks embedded for another profile count as unembedded for this one (the backfill
        // gives them vectors here)
        await c.query("UPDATE chunks SET embedded_in = NULL WHERE embedded_in IS NOT NULL AND embedded_in <> $1", [indexName]);
      });
      dims.set(indexName, dimension);
    },
    async unembeddedChunks(indexName, limit, tenantId) {
      void indexName; // embedded_in is NULL for every chunk without a vector in the active index
      const r = tenantId
        ? await pool.query<RawChunk>(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.embedded_in IS NULL AND c.tenant_id = $1 ORDER BY c.id LIMIT $2`, [tenantId, limit])
        : await pool.query<RawChunk>(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.embedded_in IS NULL ORDER BY c.id LIMIT $1`, [limit]);
      return r.rows.map(toChunk) as ChunkRow[];
    },
    async storeEmbeddings(indexName, items) {
      const t = vectorTable(indexName);
      const ok = items.filter((it) => bigintIds([it.chunkId]).length === 1);
      if (ok.length === 0) return;
      await transaction(pool, async (c) => {
        // chunks replaced or deleted meanwhile drop out of the join
        const r = await c.query<{ tenant_id: string; id: string }>(
          `INSERT INTO ${t} (tenant_id, chunk_id, data_source_id, embedding)
           SELECT c.tenant_id, c.id, c.data_source_id, x.v::vector
           FROM unnest($1::bigint[], $2::text[]) AS x(id, v) JOIN chunks c ON c.id = x.id
           ORDER BY c.tenant_id, c.id
           ON CONFLICT (tenant_id, chunk_id) DO UPDATE SET embedding = excluded.embedding
           RETURNING tenant_id, chunk_id::text AS id`,
          [ok.map((it) => it.chunkId), ok.map((it) => vectorLiteral(it.vector))],
        );
        await c.query(
          `UPDATE chunks c SET embedded_in = $1 FROM unnest($2::text[], $3::bigint[]) AS x(tenant_id, id)
           WHERE c.tenant_id = x.tenant_id AND c.id = x.id`,
          [indexName, r.rows.map((x) => x.tenant_id), r.rows.map((x) => x.id)],
        );
      });
    },
    async countUnembedded(indexName, tenantId) {
      void indexName;
      const r = tenantId
        ? await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE embedded_in IS NULL AND tenant_id = $1", [tenantId])
        : await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE embedded_in IS NULL");
      return r.rows[0]!.n;
    },
    async vectorSearch(indexName, tenantId, sourceIds, vector, k) {
      if (sourceIds.length === 0 || k <= 0) return [];
      const t = vectorTable(indexName);
      const dim = await dimensionOf(indexName);
      if (dim === null) return [];
      const graph = dim <= HNSW_MAX_DIM && (await scopeSize(t, tenantId, sourceIds)) >= exactBelow;
      return graph ? graphSearch(t, tenantId, sourceIds, vector, k) : exactSearch(t, tenantId, sourceIds, vector, k);
    },
    async vectorIndexStatus(indexName): Promise<VectorIndexStatus> {
      const dim = await dimensionOf(indexName);
      if (dim === null) return { kind: "hnsw (pgvector)", partitions: 0, vectors: 0, building: 0, behind: 0 };
      const t = vectorTable(indexName);
      // an exact count reads the whole table: above a million rows the planner's estimate serves
      const est = await pool.query<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass($1)", [t]);
      const estimate = est.rows[0]?.n ?? -1;
      const vectors =
        estimate >= 1_000_000 ? Math.round(estimate) : (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]!.n;
      const kind =
        dim <= HNSW_MAX_DIM
          ? `hnsw (pgvector, M ${HNSW_M}, iterative scan; scopes under ${exactBelow} vectors exact)`
          : "exact (pgvector, dimension above HNSW's 2000)";
      return { kind, partitions: 1, vectors, building: 0, behind: 0 };
    },
  };
}
