// Vectors in pgvector: one table per index name (vec_<name>, its own fixed dimension) with an HNSW
// cosine index over all tenants and a btree on (tenant_id, data_source_id). A query's scope (the
// tenant's sources in the collection) is applied inside the scan: small scopes are searched
// exactly through the btree (every vector of the scope, sorted by distance); larger ones walk the
// HNSW graph with pgvector 0.8's iterative scan, which keeps going until k rows pass the filter.
// A search is one statement (exact) or one transaction of two round trips (graph).
// docs/decisions.md ("PostgreSQL vectors") has the measurements behind the threshold.
// The parts: vector-tables.ts (tables, their column types, status), vector-embeddings.ts (writes),
// vector-search.ts (the two scans); pgvector.ts holds what they share.
import type { Pool } from "../db.js";
import type { ChunkSearch, VectorStore } from "../../content-store.js";
import { vectorTable } from "../../json.js";
import { vectorTableMethods, type VectorColumns } from "./vector-tables.js";
import { embeddingMethods, insertVectors } from "./vector-embeddings.js";
import { vectorSearchMethods, type VectorSearchOptions } from "./vector-search.js";
import { vectorLiteral } from "./pgvector.js";

export { vectorTable, vectorLiteral, insertVectors, type VectorSearchOptions };

type VectorMethods = VectorStore & Pick<ChunkSearch, "vectorSearch">;

/** `columns` is the store's one cache: ensureVectorIndex fills it for the writes, searches and status. */
export function vectorMethods(pool: Pool, columns: VectorColumns, opts: VectorSearchOptions = {}): VectorMethods {
  const exactBelow = opts.exactBelow ?? 20_000;
  return {
    ...vectorTableMethods(pool, columns, exactBelow),
    ...embeddingMethods(pool, columns),
    ...vectorSearchMethods(pool, columns, { ...opts, exactBelow }),
  };
}
