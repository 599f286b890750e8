// What pgvector allows and how it is spoken to: HNSW's dimension cap and build parameters, and the
// text literal a vector travels as (shared by the table, embedding and search modules).

/** pgvector's HNSW indexes `vector` up to 2,000 dimensions; beyond, searches stay exact */
export const HNSW_MAX_DIM = 2000;
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;

export const vectorLiteral = (v: Float32Array): string => `[${Array.from(v).join(",")}]`;
