// Where the scale corpus gets its vectors: clustered synthetic ones (default, see vectors.ts) or the
// active embedding model (real, slow: for small sizes). Both answer "the vectors of this
// document again" for the exact-search pass after loading.
import type { Embedder } from "../../../embed/types.js";
import { createSpace, documentVectors, queryVector, randomUnit, type VectorSpace } from "./vectors.js";
import { hash32, prng } from "./rng.js";

export interface VectorSource {
  kind: "synthetic" | "model";
  describe: string;
  /** vectors of the first chunks.length chunks of stream document `ordinal` */
  documentVectors(ordinal: number, source: string, chunks: string[]): Promise<Float32Array[]>;
  /** the same vectors again (exact search after loading) */
  again(ordinal: number, source: string, count: number, kept: Float32Array[] | null): Float32Array[];
  /** does `again` need the vectors kept (they cannot be recomputed cheaply) */
  keeps: boolean;
  queryVector(q: number, text: string, chunkVector: Float32Array): Promise<Float32Array>;
  /** for queries the bench did not make (never expected): a vector all the same */
  fallback(text: string): Float32Array;
}

export function syntheticVectors(dim: number, clusters: number, seed: number): VectorSource {
  const space: VectorSpace = createSpace(dim, clusters, seed);
  return {
    kind: "synthetic",
    describe: `clustered synthetic ${dim}-d vectors (${clusters} topics, seed ${seed}); queries near the chunk they were sampled from`,
    keeps: false,
    documentVectors: async (ordinal, source, chunks) => documentVectors(space, ordinal, source, chunks.length),
    again: (ordinal, source, count) => documentVectors(space, ordinal, source, count),
    queryVector: async (q, _text, chunk) => queryVector(space, chunk, q),
    fallback: (text) => randomUnit(dim, prng(hash32(text))),
  };
}

export function modelVectors(embedder: Embedder): VectorSource {
  return {
    kind: "model",
    describe: `real embeddings from the active model (${embedder.profile.name}, ${embedder.profile.dimension}-d)`,
    keeps: true,
    documentVectors: (_ordinal, _source, chunks) => embedder.embedPassages(chunks),
    again: (_o, _s, _c, kept) => kept ?? [],
    queryVector: (_q, text) => embedder.embedQuery(text),
    fallback: (text) => randomUnit(embedder.profile.dimension, prng(hash32(text))),
  };
}
