// The chunks a search filter lets through in SQLite: the filter's condition over the tenant's
// documents in the searched sources, then their chunks. Both retrievers take this set and search
// inside it (lexical-index.ts through the index's accept test, search.ts for vectors), so a
// filtered search ranks the filtered chunks themselves.
import type { DB } from "../db.js";
import type { SearchFilter } from "../../../search/filter/types.js";
import { vectorTable } from "./json.js";
import { vectorBytes } from "./index-entries.js";
import { sqliteFilter } from "./filter-sql.js";

type Scored = { chunkId: string; score: number };

export function filteredChunkIds(db: DB, tenantId: string, sourceIds: string[], filter: SearchFilter): Set<number> {
  const { sql, params } = sqliteFilter(filter);
  const ids = db
    .prepare(
      `SELECT c.id FROM documents d JOIN chunks c ON c.document_id = d.id
       WHERE d.tenant_id = ? AND d.data_source_id IN (SELECT value FROM json_each(?)) AND ${sql}`,
    )
    .pluck()
    .all(tenantId, JSON.stringify(sourceIds), ...params) as number[];
  return new Set(ids);
}

/**
 * The k nearest of these chunks, exactly: each one's stored vector against the query (a point
 * read of vec0 by its key). For filtered sets small enough to read whole (search.ts).
 */
export function exactAmong(db: DB, indexName: string, tenantId: string, ids: Iterable<number>, vector: Float32Array, k: number): Scored[] {
  const rows = db
    .prepare(
      `SELECT chunk_id AS chunkId, vec_distance_cosine(embedding, ?) AS distance FROM ${vectorTable(indexName)}
       WHERE chunk_id IN (SELECT value FROM json_each(?)) AND tenant_id = ?
       ORDER BY distance, chunk_id LIMIT ?`,
    )
    .all(vectorBytes(vector), JSON.stringify([...ids]), tenantId, k) as { chunkId: number; distance: number }[];
  return rows.map((r) => ({ chunkId: String(r.chunkId), score: 1 - r.distance }));
}
