// The vector tables themselves: one per index name (vec_<name>, its own fixed dimension), created
// once under an advisory lock, their dimension and element type remembered per process, and their
// /health status.
import { transaction, type Client, type Pool } from "../db.js";
import type { VectorIndexStatus } from "../../content-types.js";
import type { VectorStore } from "../../content-store.js";
import { vectorTable } from "../../json.js";
import { HNSW_EF_CONSTRUCTION, HNSW_M, HNSW_MAX_DIM } from "./pgvector.js";
import { distributeTenantTable, isCitus } from "../distribution.js";

const ENSURE_LOCK = 50_003;

/** pgvector's element type of a vector table's `embedding` column. */
export type VectorType = "vector" | "halfvec";

/** What a statement needs to know of an index's table: its dimension and element type. */
export interface VectorColumn {
  dimension: number;
  type: VectorType;
}

/** Each index name's column, read once per process (null: no such index). */
export interface VectorColumns {
  of(indexName: string): Promise<VectorColumn | null>;
  set(indexName: string, column: VectorColumn): void;
}

/**
 * The table's own column type, from the catalogue: tables made before halfvec (2026-11-28) stay
 * `vector` until their index is rebuilt under a new name. Two statements rather than a join:
 * on Citus `vector_indexes` is a reference table, which it will not join to the catalogue.
 */
async function readColumn(q: Pool | Client, indexName: string): Promise<VectorColumn | null> {
  const r = await q.query<{ dimension: number }>("SELECT dimension FROM vector_indexes WHERE name = $1", [indexName]);
  if (!r.rows[0]) return null;
  const t = await q.query<{ typname: string }>(
    `SELECT t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = to_regclass($1) AND a.attname = 'embedding'`,
    [vectorTable(indexName)],
  );
  return { dimension: r.rows[0].dimension, type: t.rows[0]?.typname === "halfvec" ? "halfvec" : "vector" };
}

export function vectorColumns(pool: Pool): VectorColumns {
  const columns = new Map<string, VectorColumn>();
  return {
    async of(indexName) {
      const known = columns.get(indexName);
      if (known) return known;
      const c = await readColumn(pool, indexName);
      if (c) columns.set(indexName, c);
      return c;
    },
    set(indexName, column) {
      columns.set(indexName, column);
    },
  };
}

// New tables keep their vectors as halfvec (2 bytes a dimension) where the HNSW graph can index
// them: a 512-d halfvec row (1 KB) stays in the heap page where a float4 vector (2 KB; pgvector's
// type is EXTERNAL) goes to TOAST, and pgvector scores halfvec with the CPU's F16C kernels. An
// exact scan of 6,082 512-d vectors took 20.9-24.1 ms as vector, 3.2-3.8 ms as halfvec
// (docs/decisions.md, "Vectors as halfvec on PostgreSQL"). Above HNSW's limit: vector (exact).
const newColumnType = (dimension: number): VectorType => (dimension <= HNSW_MAX_DIM ? "halfvec" : "vector");

async function createVectorTable(c: Client, indexName: string, dimension: number): Promise<void> {
  const t = vectorTable(indexName);
  const type = newColumnType(dimension);
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${t} (
       tenant_id TEXT NOT NULL,
       chunk_id BIGINT NOT NULL,
       data_source_id TEXT NOT NULL,
       embedding ${type}(${dimension}) NOT NULL,
       PRIMARY KEY (tenant_id, chunk_id),
       FOREIGN KEY (tenant_id, chunk_id) REFERENCES chunks (tenant_id, id) ON DELETE CASCADE
     )`,
  );
  // on Citus, next to its tenant's chunks (one HNSW graph per shard); the indexes follow to the shards
  if (await isCitus(c)) await distributeTenantTable(c, t);
  await c.query(`CREATE INDEX IF NOT EXISTS ${t}_scope ON ${t} (tenant_id, data_source_id)`);
  if (dimension <= HNSW_MAX_DIM) {
    await c.query(
      `CREATE INDEX IF NOT EXISTS ${t}_hnsw ON ${t} USING hnsw (embedding ${type}_cosine_ops)
       WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`,
    );
  }
}

async function ensureVectorIndex(pool: Pool, indexName: string, dimension: number): Promise<VectorColumn> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16_000) throw new Error(`invalid dimension ${dimension}`);
  return transaction(pool, async (c) => {
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
    return (await readColumn(c, indexName))!;
  });
}

async function countVectors(pool: Pool, t: string): Promise<number> {
  // an exact count reads the whole table: above a million rows the planner's estimate serves
  const est = await pool.query<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = to_regclass($1)", [t]);
  const estimate = est.rows[0]?.n ?? -1;
  return estimate >= 1_000_000 ? Math.round(estimate) : (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]!.n;
}

export function vectorTableMethods(pool: Pool, columns: VectorColumns, exactBelow: number): Pick<VectorStore, "ensureVectorIndex" | "vectorIndexStatus"> {
  return {
    async ensureVectorIndex(indexName, dimension) {
      columns.set(indexName, await ensureVectorIndex(pool, indexName, dimension));
    },
    async vectorIndexStatus(indexName): Promise<VectorIndexStatus> {
      const col = await columns.of(indexName);
      if (col === null) return { kind: "hnsw (pgvector)", partitions: 0, vectors: 0, building: 0, behind: 0 };
      const vectors = await countVectors(pool, vectorTable(indexName));
      const kind =
        col.dimension <= HNSW_MAX_DIM
          ? `hnsw (pgvector ${col.type}, M ${HNSW_M}, iterative scan; scopes under ${exactBelow} vectors, or a small share of a large table, exact)`
          : "exact (pgvector, dimension above HNSW's 2000)";
      return { kind, partitions: 1, vectors, building: 0, behind: 0 };
    },
  };
}
