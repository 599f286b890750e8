// The vector tables themselves: one per index name (vec_<name>, its own fixed dimension), created
// once under an advisory lock, their dimensions remembered per process, and their /health status.
import { transaction, type Client, type Pool } from "../db.js";
import type { VectorIndexStatus } from "../../content-types.js";
import type { VectorStore } from "../../content-store.js";
import { vectorTable } from "../../json.js";
import { HNSW_EF_CONSTRUCTION, HNSW_M, HNSW_MAX_DIM } from "./pgvector.js";
import { distributeTenantTable, isCitus } from "../distribution.js";

const ENSURE_LOCK = 50_003;

/** The dimension of each index name, read once from vector_indexes (null: no such index). */
export interface Dimensions {
  of(indexName: string): Promise<number | null>;
  set(indexName: string, dimension: number): void;
}

export function dimensionCache(pool: Pool): Dimensions {
  const dims = new Map<string, number>();
  return {
    async of(indexName) {
      let d = dims.get(indexName);
      if (d === undefined) {
        const r = await pool.query<{ dimension: number }>("SELECT dimension FROM vector_indexes WHERE name = $1", [indexName]);
        if (!r.rows[0]) return null;
        dims.set(indexName, (d = r.rows[0].dimension));
      }
      return d;
    },
    set(indexName, dimension) {
      dims.set(indexName, dimension);
    },
  };
}

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
  // on Citus, next to its tenant's chunks (one HNSW graph per shard); the indexes follow to the shards
  if (await isCitus(c)) await distributeTenantTable(c, t);
  await c.query(`CREATE INDEX IF NOT EXISTS ${t}_scope ON ${t} (tenant_id, data_source_id)`);
  if (dimension <= HNSW_MAX_DIM) {
    await c.query(
      `CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding vector_cosine_ops)
       WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`,
    );
  }
}

async function ensureVectorIndex(pool: Pool, indexName: string, dimension: number): Promise<void> {
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
}

async function countVectors(pool: Pool, t: string): Promise<number> {
  // an exact count reads the whole table: above a million rows the planner's estimate serves
  const est = await pool.query<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass($1)", [t]);
  const estimate = est.rows[0]?.n ?? -1;
  return estimate >= 1_000_000 ? Math.round(estimate) : (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]!.n;
}

export function vectorTableMethods(pool: Pool, dims: Dimensions, exactBelow: number): Pick<VectorStore, "ensureVectorIndex" | "vectorIndexStatus"> {
  return {
    async ensureVectorIndex(indexName, dimension) {
      await ensureVectorIndex(pool, indexName, dimension);
      dims.set(indexName, dimension);
    },
    async vectorIndexStatus(indexName): Promise<VectorIndexStatus> {
      const dim = await dims.of(indexName);
      if (dim === null) return { kind: "hnsw (pgvector)", partitions: 0, vectors: 0, building: 0, behind: 0 };
      const vectors = await countVectors(pool, vectorTable(indexName));
      const kind =
        dim <= HNSW_MAX_DIM
          ? `hnsw (pgvector, M ${HNSW_M}, iterative scan; scopes under ${exactBelow} vectors exact)`
          : "exact (pgvector, dimension above HNSW's 2000)";
      return { kind, partitions: 1, vectors, building: 0, behind: 0 };
    },
  };
}
