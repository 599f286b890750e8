// The PostgreSQL content store: collections, sources, documents, chunks with lexical (BM25 over
// postings B-tree with exact per-tenant statistics) and vector (pgvector HNSW) search, and the job queue's storage. Every query
// names the tenant in SQL; tenant deletion reaches all of it by cascade (vectors cascade from
// chunks, lexical statistics are kept by triggers).
import type { Pool } from "../db.js";
import type { ChunkHit } from "../../content-types.js";
import type { ContentStore, ChunkSearch } from "../../content-store.js";
import { collectionMethods } from "./collections.js";
import { sourceMethods } from "./sources.js";
import { documentMethods } from "./documents.js";
import { indexWriteMethods } from "./chunk-writes.js";
import { facetMethods } from "./facets.js";
import { lexicalMethods } from "./lexical.js";
import { lexicalTermMethods } from "./lexical-terms.js";
import { vectorMethods, type VectorSearchOptions } from "./vectors.js";
import { vectorColumns } from "./vector-tables.js";
import { PgLexicalCache, type LexicalCacheOptions } from "./lexical-cache.js";
import { jobMethods } from "./jobs.js";
import { HIT, bigintIds, toHit, type RawHit } from "./rows.js";
import { rangePositions } from "../../chunk-ranges.js";

export interface PostgresContent extends ContentStore {
  /** settled tenants' in-memory BM25 indexes (status, tests) */
  readonly lexicalCache: PgLexicalCache;
  close(): Promise<void>;
}

export interface PostgresContentOptions {
  vectors?: VectorSearchOptions;
  /** in-memory BM25 of settled tenants (lexical-cache.ts; default: none) */
  lexicalCache?: LexicalCacheOptions;
}

function hitMethods(pool: Pool): Pick<ChunkSearch, "hydrateChunks" | "chunkDocuments" | "chunksInRanges"> {
  return {
    async chunkDocuments(tenantId, ids) {
      const out = new Map<string, string>();
      const wanted = bigintIds(ids);
      if (wanted.length === 0) return out;
      const r = await pool.query<{ id: string; document_id: string }>(
        "SELECT id::text AS id, document_id FROM chunks WHERE tenant_id = $1 AND id = ANY($2::bigint[])",
        [tenantId, wanted],
      );
      for (const row of r.rows) out.set(row.id, row.document_id);
      return out;
    },
    async hydrateChunks(tenantId, ids) {
      const out = new Map<string, ChunkHit>();
      const wanted = bigintIds(ids);
      if (wanted.length === 0) return out;
      const r = await pool.query<RawHit>(`${HIT} WHERE c.tenant_id = $1 AND c.id = ANY($2::bigint[])`, [tenantId, wanted]);
      for (const row of r.rows) {
        const hit = toHit(row);
        out.set(hit.id, hit);
      }
      return out;
    },
    async chunksInRanges(tenantId, ranges) {
      const { documentIds, positions } = rangePositions(ranges);
      if (positions.length === 0) return [];
      const r = await pool.query<RawHit>(
        `${HIT} WHERE c.tenant_id = $1 AND (c.document_id, c.position) IN (SELECT * FROM unnest($2::text[], $3::int[])) ORDER BY c.document_id, c.position`,
        [tenantId, documentIds, positions],
      );
      return r.rows.map(toHit);
    },
  };
}

/** The content store on a pool whose database has the migrations applied (db.ts `migrate`). */
export function postgresContent(pool: Pool, opts: PostgresContentOptions = {}): PostgresContent {
  // one cache of the vector tables' dimensions and element types, for writes and searches
  const columns = vectorColumns(pool);
  const lexical = new PgLexicalCache(pool, opts.lexicalCache ?? { maxChunks: 0 });
  return {
    ...collectionMethods(pool),
    ...sourceMethods(pool),
    ...documentMethods(pool),
    ...indexWriteMethods(pool, columns),
    ...lexicalMethods(pool, lexical),
    ...lexicalTermMethods(pool, lexical),
    ...vectorMethods(pool, columns, opts.vectors),
    ...hitMethods(pool),
    ...facetMethods(pool),
    ...jobMethods(pool),
    lexicalCache: lexical,
    // the pool belongs to the caller (the store shares it with the other tables)
    async close() {},
  };
}
