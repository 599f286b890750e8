// Approximate nearest-neighbour search over one embedding index: one HNSW graph (usearch) per
// tenant and data source, held in memory, saved under DATA_DIR/vectors (ann-files.ts), and kept in
// step with the vec0 table (the source of truth) through the vector_changes log (ann-log.ts).
//
// Why one graph per data source: a collection is a set of sources, so taking the k nearest of each
// of its sources' graphs and merging gives the k nearest of the collection itself — never a
// filtered global top-k, and no recall loss when a collection is a small share of its tenant.
// A graph that is missing, unreadable or cannot be replayed to the present is rebuilt in the
// background; until it is ready (and while it catches up with a large batch of changes) its source
// is searched exactly by sqlite-vec, so an answer never misses a vector the store holds.
import path from "node:path";
import type { Index } from "usearch";
import { DEFAULT_EF_SEARCH } from "../../../config.js";
import type { DB } from "../db.js";
import { annLog, type AnnLog, type Change } from "./ann-log.js";
import { GRAPH_BUILD, addToGraph, newGraph, type GraphSettings } from "./ann-graph.js";
import { graphFiles, readMeta, removeGraph, removeStaleFiles, safeName, writeGraph, type GraphFiles } from "./ann-files.js";

export type { Quantization } from "./ann-graph.js";

export interface AnnSettings extends GraphSettings {
  /** directory of the saved graphs (DATA_DIR/vectors) */
  dir: string;
}

// f16 by default: 40 % less memory than f32 (the vectors take half), and its cosine distances
// differ from the exact ones by 3e-5 at most (measured, docs/decisions.md "Vector index"), far
// below what moves a fused ranking, so they are used as they are. i8 is a quarter of
// f32 but its distances are off by ~1e-2, so its candidates are rescored from vec0 (~0.1 ms each).
export const DEFAULT_ANN_SETTINGS: Omit<AnnSettings, "dir"> = { connectivity: 16, expansionAdd: 128, expansionSearch: DEFAULT_EF_SEARCH, quantization: "f16" };

/** changes applied inline by a query before it searches; more than this and it searches exactly */
const INLINE_CATCH_UP = 256;
/** changes applied per background step (one step blocks the event loop for ~0.1 s at most) */
const STEP = 512;
const TICK_MS = 500;
const SAVE_AFTER_MS = 30_000;

interface Partition {
  tenantId: string;
  sourceId: string;
  index: Index;
  state: "ready" | "building";
  /** log position the saved file holds; 0: no file */
  savedSeq: number;
  /** while building: the log position of the snapshot it is built from */
  snapshotSeq: number;
  dirty: boolean;
}

export interface AnnHit {
  chunkId: number;
  distance: number;
}

export interface AnnStatus {
  kind: string;
  partitions: number;
  vectors: number;
  building: number;
  /** vector changes not yet in the graphs */
  behind: number;
}

const keyOf = (tenantId: string, sourceId: string) => `${tenantId}\u0000${sourceId}`;

/** Groups log rows by tenant and source, keeping their order. */
function byPartition(rows: Change[]): Map<string, Change[]> {
  const out = new Map<string, Change[]>();
  for (const r of rows) {
    // push, not spread: close() drains the whole log in one call, and copying the list for each
    // row made a million-row backlog quadratic (the 1,000,000-chunk bench sat in close for 80 min)
    const k = keyOf(r.tenant_id, r.data_source_id);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** A Float32Array over a vec0 blob; a pooled Buffer need not be 4-byte aligned, so then a copy. */
function floats(b: Buffer, dimension: number): Float32Array {
  return b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, dimension) : new Float32Array(new Uint8Array(b).buffer);
}

export class AnnIndex {
  private readonly log: AnnLog;
  private readonly dir: string;
  private readonly parts = new Map<string, Partition>();
  /** the log position every ready graph includes */
  private applied = 0;
  private closed = false;
  private lastSave = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private building: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: DB,
    indexName: string,
    private readonly dimension: number,
    private readonly settings: AnnSettings,
    private readonly onError: (err: unknown) => void,
  ) {
    this.log = annLog(db, indexName);
    this.dir = path.join(settings.dir, safeName(indexName));
  }

  /** the graph's distances are used as they are (f32 exact, f16 within 3e-5); i8 is rescored */
  get scoresFromGraph(): boolean {
    return this.settings.quantization !== "i8";
  }

  /** loads or repairs the saved graphs and starts background rebuilds and catch-up */
  open(): void {
    this.reopen();
    this.schedule(TICK_MS);
  }

  /**
   * The nearest chunks of these sources from their graphs, plus the sources that must be
   * searched exactly now (graph still building, or behind on a large batch of changes).
   */
  search(tenantId: string, sourceIds: string[], vector: Float32Array, k: number): { hits: AnnHit[]; exactSources: string[] } {
    const lagging = this.catchUp(INLINE_CATCH_UP) > 0 ? this.laggingKeys() : new Set<string>();
    const hits: AnnHit[] = [];
    const exactSources: string[] = [];
    for (const s of sourceIds) {
      const key = keyOf(tenantId, s);
      const p = this.parts.get(key);
      if ((p && p.state !== "ready") || lagging.has(key)) exactSources.push(s);
      else if (p && p.index.size() > 0) {
        // usearch searches with ef = max(expansion, wanted): asking for expansionSearch results
        // makes a small graph's search nearly exhaustive and lifts recall at small k
        const m = p.index.search(vector, Math.min(Math.max(k, this.settings.expansionSearch), p.index.size()), 1);
        for (let i = 0; i < Math.min(k, m.keys.length); i++) hits.push({ chunkId: Number(m.keys[i]), distance: m.distances[i] });
      }
    }
    return { hits, exactSources };
  }

  /** exact cosine distances of these chunks to the query (for i8 graphs) */
  exactDistances(ids: number[], vector: Float32Array): Map<number, number> {
    const q = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
    const out = new Map<number, number>();
    for (const id of ids) {
      const d = this.log.distanceOf(q, id);
      if (d !== undefined) out.set(id, d);
    }
    return out;
  }

  status(): AnnStatus {
    let vectors = 0;
    let building = 0;
    for (const p of this.parts.values()) {
      if (p.state === "ready") vectors += p.index.size();
      else building++;
    }
    const { connectivity, quantization, expansionSearch } = this.settings;
    return { kind: `hnsw (usearch, M ${connectivity}, ef ${expansionSearch}, ${quantization})`, partitions: this.parts.size, vectors, building, behind: this.log.maxSeq() - this.applied };
  }

  /** resolves when no graph is being built (tests, benchmarks) */
  async whenBuilt(): Promise<void> {
    await this.building;
  }

  /** applies every pending change now (tests, benchmarks) */
  catchUpAll(): void {
    while (this.catchUp(STEP) > 0);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    try {
      this.catchUp(Number.MAX_SAFE_INTEGER);
      this.save();
    } catch (err) {
      this.onError(err);
    }
  }

  /** Writes changed graphs and prunes the log behind them. */
  save(): void {
    let complete = true;
    for (const p of this.parts.values()) {
      if (p.state !== "ready") continue;
      try {
        this.savePartition(p);
      } catch (err) {
        complete = false;
        this.onError(err);
      }
    }
    this.lastSave = Date.now();
    // graphs being built replay from their snapshot, so the log must keep what follows it
    const snapshots = [...this.parts.values()].filter((p) => p.state === "building").map((p) => p.snapshotSeq);
    const through = Math.min(this.applied, ...snapshots);
    if (complete && through > 0) this.log.prune(through);
  }

  private savePartition(p: Partition): void {
    const f = this.files(p);
    if (p.index.size() === 0) {
      removeGraph(f);
      p.savedSeq = 0;
    } else if (p.dirty || p.savedSeq < this.applied) {
      const { dimension, settings } = this;
      const meta = { seq: this.applied, count: p.index.size(), dimension, quantization: settings.quantization, connectivity: settings.connectivity, build: GRAPH_BUILD };
      // a graph unchanged since its last save only needs its manifest moved forward
      writeGraph(f, meta, p.dirty || p.savedSeq === 0 ? (file) => p.index.save(file) : null);
      p.savedSeq = this.applied;
    }
    p.dirty = false;
  }

  private files(p: Partition): GraphFiles {
    return graphFiles(this.dir, p.tenantId, p.sourceId);
  }

  private newPartition(tenantId: string, sourceId: string, dirty: boolean): Partition {
    const index = newGraph(this.dimension, this.settings);
    return { tenantId, sourceId, index, state: "ready", savedSeq: 0, snapshotSeq: 0, dirty };
  }

  private laggingKeys(): Set<string> {
    return new Set(this.log.laggingSources(this.applied).map((r) => keyOf(r.tenant_id, r.data_source_id)));
  }

  /** Adds (or replaces) the current vectors of these chunks; chunks without one are skipped. */
  private addChunks(p: Partition, ids: number[]): void {
    const { dimension } = this;
    const keys: bigint[] = [];
    const matrix = new Float32Array(ids.length * dimension);
    for (const id of ids) {
      const b = this.log.vectorOf(id);
      if (!b || b.byteLength !== dimension * 4) continue; // deleted since the change was logged
      const key = BigInt(id);
      if (p.index.contains(key)) p.index.remove(key);
      matrix.set(floats(b, dimension), keys.length * dimension);
      keys.push(key);
    }
    if (keys.length === 0) return;
    addToGraph(p.index, BigUint64Array.from(keys), matrix.subarray(0, keys.length * dimension));
  }

  /** Applies logged changes to one graph; only the last change of each chunk matters. */
  private applyChanges(p: Partition, rows: Change[]): void {
    const last = new Map<number, number>();
    for (const r of rows) last.set(r.chunk_id, r.op);
    const adds: number[] = [];
    for (const [id, op] of last) {
      if (op === 1) adds.push(id);
      else p.index.remove(BigInt(id));
    }
    this.addChunks(p, adds);
    if (rows.length) p.dirty = true;
  }

  /** Applies up to `budget` logged changes to the ready graphs; returns how many remain. */
  private catchUp(budget: number): number {
    const max = this.log.maxSeq();
    if (max <= this.applied) return 0;
    if (this.log.prunedThrough() > this.applied) {
      // another process saved the graphs and pruned the log past us: reload from its files
      this.reopen();
      return this.catchUp(budget);
    }
    const rows = this.log.changesSince(this.applied, max, budget);
    for (const [k, list] of byPartition(rows)) {
      let p = this.parts.get(k);
      if (!p) {
        if (!list.some((r) => r.op === 1)) continue;
        p = this.newPartition(list[0].tenant_id, list[0].data_source_id, true);
        this.parts.set(k, p);
      }
      if (p.state === "ready") this.applyChanges(p, list); // a graph being built replays its changes when done
    }
    this.applied = rows.length < budget ? max : rows[rows.length - 1].seq;
    return max - this.applied;
  }

  /** Builds a graph from the store's vectors, in steps that let queries run in between. */
  private async build(p: Partition): Promise<void> {
    p.state = "building";
    p.index = this.newPartition(p.tenantId, p.sourceId, false).index;
    const { seq, ids } = this.log.snapshot(p.tenantId, p.sourceId);
    p.snapshotSeq = seq;
    for (let i = 0; i < ids.length; i += STEP) {
      if (this.closed) return;
      this.addChunks(p, ids.slice(i, i + STEP));
      await new Promise((res) => setImmediate(res));
    }
    // changes up to `applied` passed this graph by while it was built; later ones reach it as ready
    this.applyChanges(p, this.log.partitionChanges(p.tenantId, p.sourceId, p.snapshotSeq, this.applied));
    p.state = "ready";
    p.dirty = true;
    p.savedSeq = 0;
  }

  private scheduleBuild(p: Partition): void {
    p.state = "building";
    this.building = this.building.then(() => (this.closed ? undefined : this.build(p).catch(this.onError)));
  }

  /** Loads a saved graph if it matches the settings and can be replayed to `upTo`. */
  private load(p: Partition, upTo: number, pruned: number, expected: number): boolean {
    const f = this.files(p);
    const meta = readMeta(f);
    if (!meta) return false;
    const { dimension, settings } = this;
    const compatible = meta.dimension === dimension && meta.quantization === settings.quantization && meta.connectivity === settings.connectivity && meta.build === GRAPH_BUILD;
    if (!compatible || meta.seq < pruned || meta.seq > upTo) return false;
    try {
      p.index.load(f.graph);
    } catch {
      return false;
    }
    p.savedSeq = meta.seq;
    this.applyChanges(p, this.log.partitionChanges(p.tenantId, p.sourceId, meta.seq, upTo));
    // the count is the last guard: a graph from another copy of the data never passes for this one
    return p.index.size() === expected;
  }

  /** Loads, repairs or schedules a rebuild of every graph the store's vectors call for. */
  private reopen(): void {
    const upTo = this.log.maxSeq();
    const pruned = this.log.prunedThrough();
    this.parts.clear();
    for (const c of this.log.storedCounts()) {
      const p = this.newPartition(c.tenant_id, c.data_source_id, false);
      this.parts.set(keyOf(c.tenant_id, c.data_source_id), p);
      if (!this.load(p, upTo, pruned, c.n)) this.scheduleBuild(p);
    }
    this.applied = upTo;
    removeStaleFiles(this.dir, new Set([...this.parts.values()].flatMap((p) => Object.values(this.files(p)))));
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.tick(), ms);
    if (ms > 0) this.timer.unref();
  }

  private tick(): void {
    if (this.closed || !this.db.open) return; // a store closed without close() (a crash, in tests) stops here
    try {
      if (this.catchUp(STEP) > 0) return this.schedule(0);
      const dirty = [...this.parts.values()].some((p) => p.dirty);
      if (dirty && Date.now() - this.lastSave > SAVE_AFTER_MS) this.save();
    } catch (err) {
      this.onError(err);
    }
    this.schedule(TICK_MS);
  }
}
