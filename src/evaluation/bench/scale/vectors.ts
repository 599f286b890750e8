// Clustered synthetic vectors, the scale bench's default: real embeddings of a million chunks would
// take the default model days on this machine. Each document sits near one of `clusters` topic
// centroids and each chunk near its document, so a query made from a chunk has true neighbours
// (its chunk, its document, its topic) the way real embeddings do; a uniformly random corpus
// would have none and tell nothing about an approximate index. Every vector is a pure function of
// (seed, document ordinal, chunk index), so the exact top-k can be recomputed after loading
// without keeping a million vectors in memory.
import { hash32, prng, seedFor } from "./rng.js";

export interface VectorSpace {
  dim: number;
  seed: number;
  centroids: Float32Array[];
}

/** document spread around its topic, chunk spread around its document, query around its chunk */
const DOC_SPREAD = 0.8;
const CHUNK_SPREAD = 0.6;
const QUERY_SPREAD = 0.6;

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  for (let i = 0; i < v.length; i++) v[i] *= s;
  return v;
}

/** a random direction (uniform components, normalised: cheap and close enough to isotropic) */
export function randomUnit(dim: number, rnd: () => number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = rnd() - 0.5;
  return normalize(v);
}

/** base + spread * (random unit direction), normalised */
function around(base: Float32Array, spread: number, rnd: () => number): Float32Array {
  const noise = randomUnit(base.length, rnd);
  const v = new Float32Array(base.length);
  for (let i = 0; i < v.length; i++) v[i] = base[i] + spread * noise[i];
  return normalize(v);
}

export function createSpace(dim: number, clusters: number, seed: number): VectorSpace {
  const centroids = Array.from({ length: clusters }, (_, c) => randomUnit(dim, prng(seedFor(seed, "centroid", c))));
  return { dim, seed, centroids };
}

/** The chunk vectors of document `ordinal` (its topic follows from its source name). */
export function documentVectors(space: VectorSpace, ordinal: number, source: string, chunkCount: number): Float32Array[] {
  const topic = space.centroids[hash32(source) % space.centroids.length];
  const doc = around(topic, DOC_SPREAD, prng(seedFor(space.seed, "doc", ordinal)));
  const rnd = prng(seedFor(space.seed, "chunks", ordinal));
  return Array.from({ length: chunkCount }, () => around(doc, CHUNK_SPREAD, rnd));
}

/** The vector of query number q, made from the vector of the chunk it was sampled from. */
export function queryVector(space: VectorSpace, chunk: Float32Array, q: number): Float32Array {
  return around(chunk, QUERY_SPREAD, prng(seedFor(space.seed, "query", q)));
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
