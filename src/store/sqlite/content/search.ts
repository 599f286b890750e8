import type { Statement } from "better-sqlite3";
import type { DB } from "../db.js";
import type { ChunkHit, ContentStore } from "../../content-types.js";
import { parseJson, vectorTable } from "./json.js";
import { createVectorTable, vectorBytes } from "./index-entries.js";
import { toChunk } from "./documents.js";
import { backfillChunkTerms, createLexicalIndexes } from "./lexical/lexical-index.js";
import type { VectorIndexes } from "./vector-indexes.js";
import { rangePositions } from "../../chunk-ranges.js";

type RawHit = Parameters<typeof toChunk>[0] & { title: string; source: string; document_metadata: string };
const toHit = (r: RawHit): ChunkHit => ({
  ...toChunk(r),
  title: r.title,
  source: r.source,
  document_metadata: parseJson(r.document_metadata, {}),
});

const HIT = `SELECT c.*, d.title AS title, d.source AS source, d.metadata AS document_metadata
  FROM chunks c JOIN documents d ON d.id = c.document_id`;

type SearchMethods = Pick<
  ContentStore,
  | "ensureVectorIndex"
  | "unembeddedChunks"
  | "storeEmbeddings"
  | "countUnembedded"
  | "lexicalSearch"
  | "vectorSearch"
  | "hydrateChunks"
  | "chunkDocuments"
  | "chunksInRanges"
  | "vectorIndexStatus"
>;

export function searchMethods(db: DB, vectors: VectorIndexes): SearchMethods {
  backfillChunkTerms(db);
  const lexical = createLexicalIndexes(db);
  const chunkDocumentsOf = db.prepare("SELECT id, document_id FROM chunks WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))");
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
  /** brute force over vec0: tenant is the partition key and the source a metadata column, so the
   * filter runs inside the scan (the k nearest of these sources, not a filtered global top-k) */
  function exactSearch(indexName: string, tenantId: string, sourceIds: string[], vector: Float32Array, k: number) {
    const rows = db
      .prepare(
        `SELECT chunk_id AS chunkId, distance FROM ${vectorTable(indexName)}
         WHERE embedding MATCH ? AND k = ? AND tenant_id = ? AND data_source_id IN (SELECT value FROM json_each(?))`,
      )
      .all(vectorBytes(vector), Math.min(k, 4096), tenantId, JSON.stringify(sourceIds)) as { chunkId: number; distance: number }[];
    return rows.map((r) => ({ chunkId: String(r.chunkId), score: 1 - r.distance }));
  }
  return {
    async ensureVectorIndex(indexName, dimension) {
      createVectorTable(db, indexName, dimension);
      // Chunks embedded for another profile count as unembedded for this one, so the backfill
      // (which looks for embedded_in IS NULL through a partial index) gives them vectors here.
      db.prepare("UPDATE chunks SET embedded_in = NULL WHERE embedded_in IS NOT NULL AND embedded_in != ?").run(indexName);
      vectors.open(indexName, dimension);
    },
    async unembeddedChunks(indexName, limit, tenantId) {
      // embedded_in is NULL for every chunk without a vector in the active index (see resetEmbedded)
      void indexName;
      const sql = `SELECT * FROM chunks WHERE embedded_in IS NULL ${tenantId ? "AND tenant_id = ?" : ""} ORDER BY id LIMIT ?`;
      const rows = tenantId ? db.prepare(sql).all(tenantId, limit) : db.prepare(sql).all(limit);
      return (rows as Parameters<typeof toChunk>[0][]).map(toChunk);
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
    async lexicalSearch(tenantId, sourceIds, query, limit, w) {
      return lexical.search(tenantId, sourceIds, query, limit, w);
    },
    async vectorSearch(indexName, tenantId, sourceIds, vector, k) {
      if (sourceIds.length === 0) return [];
      const ann = vectors.get(indexName);
      if (!ann) return exactSearch(indexName, tenantId, sourceIds, vector, k);
      const { hits, exactSources } = ann.search(tenantId, sourceIds, vector, k);
      // a quantized graph only finds the candidates; their scores then come from the exact
      // vectors, so a chunk scores the same whichever path found it
      const exact = ann.exactInGraph ? null : ann.exactDistances(hits.map((h) => h.chunkId), vector);
      const scored: { chunkId: string; score: number }[] = [];
      for (const h of hits) {
        const d = exact ? exact.get(h.chunkId) : h.distance;
        if (d !== undefined) scored.push({ chunkId: String(h.chunkId), score: 1 - d });
      }
      if (exactSources.length) scored.push(...exactSearch(indexName, tenantId, exactSources, vector, k));
      return scored.sort((a, b) => b.score - a.score).slice(0, k);
    },
    async vectorIndexStatus(indexName) {
      return vectors.status(indexName) ?? { kind: "exact (sqlite-vec)", partitions: 0, vectors: 0, building: 0, behind: 0 };
    },
    async chunkDocuments(tenantId, ids) {
      const out = new Map<string, string>();
      if (ids.length === 0) return out;
      const rowids = ids.map(Number).filter(Number.isSafeInteger);
      const rows = chunkDocumentsOf.all(tenantId, JSON.stringify(rowids)) as { id: number; document_id: string }[];
      for (const r of rows) out.set(String(r.id), r.document_id);
      return out;
    },
    async hydrateChunks(tenantId, ids) {
      const out = new Map<string, ChunkHit>();
      if (ids.length === 0) return out;
      const rowids = ids.map(Number).filter(Number.isSafeInteger);
      const rows = db
        .prepare(`${HIT} WHERE c.tenant_id = ? AND c.id IN (SELECT value FROM json_each(?))`)
        .all(tenantId, JSON.stringify(rowids)) as RawHit[];
      for (const r of rows) {
        const hit = toHit(r);
        out.set(hit.id, hit);
      }
      return out;
    },
    async chunksInRanges(tenantId, ranges) {
      const { documentIds, positions } = rangePositions(ranges);
      if (positions.length === 0) return [];
      const pairs = JSON.stringify(documentIds.map((d, i) => [d, positions[i]]));
      return (
        db
          .prepare(
            `${HIT} WHERE c.tenant_id = ? AND (c.document_id, c.position) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?)) ORDER BY c.document_id, c.position`,
          )
          .all(tenantId, pairs) as RawHit[]
      ).map(toHit);
    },
  };
}
