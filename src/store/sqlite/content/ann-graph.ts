// One HNSW graph (usearch): how it is made and how vectors go in. Kept apart from ann.ts (which
// keeps the graphs in step with the store) so the insertion rule below can be tested alone.
import { Index, MetricKind, ScalarKind } from "usearch";

export type Quantization = "f32" | "f16" | "i8";

export interface GraphSettings {
  /** HNSW M: links per node */
  connectivity: number;
  /** HNSW ef at build time */
  expansionAdd: number;
  /** HNSW ef at query time (raised to k when k is larger); every search asks for this many */
  expansionSearch: number;
  /** how the graph stores vectors; i8 candidates are rescored exactly from vec0 */
  quantization: Quantization;
}

/**
 * The insertion rule a saved graph was built by. 2: one thread (below). A graph saved by 1 (two
 * threads) may hold a stranded node, so it is rebuilt at start rather than trusted.
 */
export const GRAPH_BUILD = 2;

const SCALAR = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;

export function newGraph(dimension: number, settings: GraphSettings): Index {
  return new Index({
    dimensions: dimension,
    metric: MetricKind.Cos,
    quantization: SCALAR[settings.quantization],
    connectivity: settings.connectivity,
    expansion_add: settings.expansionAdd,
    expansion_search: settings.expansionSearch,
    multi: false,
  });
}

/**
 * Adds `keys.length` vectors (rows of `matrix`) on one thread. usearch 2.25's concurrent add
 * can leave a node stored but unreachable by any search (upstream issue unum-cloud/USearch#735:
 * a node is linked from above before its level-0 links exist; a fix is proposed in PR #772, not
 * released). Measured here with 300 random 512-d vectors per graph, in batches of 64: 2 threads
 * stranded at least one node in 33 of 1,000 graphs, 1 thread in none of 1,000; a stranded chunk is
 * missing from every vector answer until its graph is rebuilt. One thread is also what keeps
 * usearch's per-thread insertion contexts consistent between adds (docs/decisions.md).
 */
export function addToGraph(index: Index, keys: BigUint64Array, matrix: Float32Array): void {
  index.add(keys, matrix, 1);
}
