// Which vector search the SQLite store runs: "hnsw" keeps an approximate graph per tenant and data
// source (ann.ts) next to the exact vec0 table; "exact" scans vec0 (sqlite-vec brute force).
import type { DB } from "../db.js";
import { AnnIndex, DEFAULT_ANN_SETTINGS, type AnnSettings, type AnnStatus } from "./ann.js";

export type VectorIndexMode = "hnsw" | "exact";

export interface VectorIndexOptions {
  mode: VectorIndexMode;
  /** where graphs are saved (DATA_DIR/vectors); required for hnsw */
  dir: string | null;
  ann?: Partial<Omit<AnnSettings, "dir">>;
  onError?: (err: unknown) => void;
}

export function createVectorIndexes(db: DB, opts: VectorIndexOptions) {
  const anns = new Map<string, AnnIndex>();
  return {
    /** opens (loads, repairs or starts rebuilding) the graphs of an index; no-op in exact mode */
    open(indexName: string, dimension: number): void {
      if (opts.mode !== "hnsw" || !opts.dir || anns.has(indexName)) return;
      const settings: AnnSettings = { ...DEFAULT_ANN_SETTINGS, ...opts.ann, dir: opts.dir };
      const ann = new AnnIndex(db, indexName, dimension, settings, opts.onError ?? ((err) => console.error("vector index:", err)));
      ann.open();
      anns.set(indexName, ann);
    },
    get(indexName: string): AnnIndex | null {
      return anns.get(indexName) ?? null;
    },
    status(indexName: string): AnnStatus | null {
      return anns.get(indexName)?.status() ?? null;
    },
    close(): void {
      for (const a of anns.values()) a.close();
      anns.clear();
    },
  };
}

export type VectorIndexes = ReturnType<typeof createVectorIndexes>;
