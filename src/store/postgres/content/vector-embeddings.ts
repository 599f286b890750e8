// Writing vectors: those of freshly indexed chunks (in the indexing transaction) and the
// backfill's, which finds chunks without a vector in the active index and stores theirs.
import { transaction, type Client, type Pool } from "../db.js";
import type { ChunkRow } from "../../content-types.js";
import type { VectorStore } from "../../content-store.js";
import { vectorTable } from "../../json.js";
import { vectorLiteral } from "./pgvector.js";
import { CHUNK_COLS, bigintIds, toChunk, type RawChunk } from "./rows.js";
import type { VectorColumns } from "./vector-tables.js";

type EmbeddingMethods = Pick<VectorStore, "unembeddedChunks" | "storeEmbeddings" | "countUnembedded" | "resetEmbeddings" | "embeddedIndex">;

// Literals are cast to the column's own type: left to an implicit vector -> halfvec assignment
// cast, Citus deparses the cast function with too few arguments ("not enough default arguments")
// and the write fails on the workers.

/** Writes the vectors of newly inserted chunks (ids parallel to values). */
export async function insertVectors(c: Client, columns: VectorColumns, indexName: string, tenantId: string, sourceId: string, ids: string[], values: Float32Array[]) {
  const type = (await columns.of(indexName))?.type ?? "vector";
  await c.query(
    `INSERT INTO ${vectorTable(indexName)} (tenant_id, chunk_id, data_source_id, embedding)
     SELECT $1, x.id, $2, x.v::${type} FROM unnest($3::bigint[], $4::text[]) AS x(id, v)`,
    [tenantId, sourceId, ids, values.map(vectorLiteral)],
  );
}

async function storeEmbeddings(pool: Pool, columns: VectorColumns, indexName: string, items: { chunkId: string; vector: Float32Array }[]): Promise<void> {
  const t = vectorTable(indexName);
  const type = (await columns.of(indexName))?.type ?? "vector";
  const ok = items.filter((it) => bigintIds([it.chunkId]).length === 1);
  if (ok.length === 0) return;
  await transaction(pool, async (c) => {
    // chunks replaced or deleted meanwhile drop out of the join
    const r = await c.query<{ tenant_id: string; id: string }>(
      `INSERT INTO ${t} (tenant_id, chunk_id, data_source_id, embedding)
       SELECT c.tenant_id, c.id, c.data_source_id, x.v::${type}
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
}

export function embeddingMethods(pool: Pool, columns: VectorColumns): EmbeddingMethods {
  return {
    async unembeddedChunks(indexName, limit, tenantId) {
      void indexName; // embedded_in is NULL for every chunk without a vector in the active index
      const r = tenantId
        ? await pool.query<RawChunk>(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.embedded_in IS NULL AND c.tenant_id = $1 ORDER BY c.id LIMIT $2`, [tenantId, limit])
        : await pool.query<RawChunk>(`SELECT ${CHUNK_COLS} FROM chunks c WHERE c.embedded_in IS NULL ORDER BY c.id LIMIT $1`, [limit]);
      return r.rows.map(toChunk) as ChunkRow[];
    },
    async storeEmbeddings(indexName, items) {
      await storeEmbeddings(pool, columns, indexName, items);
    },
    async countUnembedded(indexName, tenantId) {
      void indexName;
      const r = tenantId
        ? await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE embedded_in IS NULL AND tenant_id = $1", [tenantId])
        : await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks WHERE embedded_in IS NULL");
      return r.rows[0]!.n;
    },
    async resetEmbeddings(tenantId, sourceIds) {
      if (sourceIds.length === 0) return 0;
      const r = await pool.query("UPDATE chunks SET embedded_in = NULL WHERE tenant_id = $1 AND data_source_id = ANY($2::text[]) AND embedded_in IS NOT NULL", [tenantId, sourceIds]);
      return r.rowCount ?? 0;
    },
    async embeddedIndex() {
      const r = await pool.query<{ embedded_in: string }>("SELECT embedded_in FROM chunks WHERE embedded_in IS NOT NULL LIMIT 1");
      return r.rows[0]?.embedded_in ?? null;
    },
  };
}
