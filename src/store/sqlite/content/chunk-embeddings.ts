// Chunk vectors in SQLite: the vec0 table of an embedding profile, and the backfill's view of which
// chunks still need a vector. `embedded_in` on a chunk names the index its vector is in.
import type { DB } from "../db.js";
import type { VectorStore } from "../../content-store.js";
import { vectorTable } from "./json.js";
import { createVectorTable, vectorBytes } from "./index-entries.js";
import { toChunk, type RawChunk } from "./document-rows.js";
import type { VectorIndexes } from "./vector-indexes.js";

type EmbeddingMethods = Pick<VectorStore, "ensureVectorIndex" | "unembeddedChunks" | "storeEmbeddings" | "countUnembedded" | "resetEmbeddings" | "embeddedIndex">;

export function embeddingMethods(db: DB, vectors: VectorIndexes): EmbeddingMethods {
  const store = db.transaction((indexName: string, items: { chunkId: string; vector: Float32Array }[]) => {
    const t = vectorTable(indexName);
    const info = db.prepare("SELECT tenant_id, data_source_id FROM chunks WHERE id = ?");
    const del = db.prepare(`DELETE FROM ${t} WHERE chunk_id = ?`);
    const ins = db.prepare(`INSERT INTO ${t} (chunk_id, embedding, tenant_id, data_source_id) VALUES (?, ?, ?, ?)`);
    const mark = db.prepare("UPDATE chunks SET embedded_in = ? WHERE id = ?");
    for (const it of items) {
      const rowid = Number(it.chunkId);
      const c = info.get(rowid) as { tenant_id: string; data_source_id: string } | undefined;
      if (!c) continue; // chunk replaced or deleted meanwhile
      del.run(BigInt(rowid));
      ins.run(BigInt(rowid), vectorBytes(it.vector), c.tenant_id, c.data_source_id);
      mark.run(indexName, rowid);
    }
  });
  return {
    async ensureVectorIndex(indexName, dimension) {
      createVectorTable(db, indexName, dimension);
      // Chunks embedded for another profile count as unembedded for this one, so the backfill
      // (which looks for embedded_in IS NULL through a partial index) gives them vectors here.
      db.prepare("UPDATE chunks SET embedded_in = NULL WHERE embedded_in IS NOT NULL AND embedded_in != ?").run(indexName);
      vectors.open(indexName, dimension);
    },
    async unembeddedChunks(indexName, limit, tenantId) {
      // embedded_in is NULL for every chunk without a vector in the active index (see ensureVectorIndex)
      void indexName;
      const sql = `SELECT * FROM chunks WHERE embedded_in IS NULL ${tenantId ? "AND tenant_id = ?" : ""} ORDER BY id LIMIT ?`;
      const rows = tenantId ? db.prepare(sql).all(tenantId, limit) : db.prepare(sql).all(limit);
      return (rows as RawChunk[]).map(toChunk);
    },
    async storeEmbeddings(indexName, items) {
      store(indexName, items);
    },
    async countUnembedded(indexName, tenantId) {
      void indexName;
      const sql = `SELECT count(*) AS n FROM chunks WHERE embedded_in IS NULL ${tenantId ? "AND tenant_id = ?" : ""}`;
      const r = (tenantId ? db.prepare(sql).get(tenantId) : db.prepare(sql).get()) as { n: number };
      return r.n;
    },
    async resetEmbeddings(tenantId, sourceIds) {
      if (sourceIds.length === 0) return 0;
      const marks = sourceIds.map(() => "?").join(", ");
      return db.prepare(`UPDATE chunks SET embedded_in = NULL WHERE tenant_id = ? AND data_source_id IN (${marks}) AND embedded_in IS NOT NULL`).run(tenantId, ...sourceIds).changes;
    },
    async embeddedIndex() {
      const r = db.prepare("SELECT embedded_in FROM chunks WHERE embedded_in IS NOT NULL LIMIT 1").get() as { embedded_in: string } | undefined;
      return r?.embedded_in ?? null;
    },
  };
}
