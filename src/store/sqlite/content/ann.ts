// Approximate nearest-neighbour search over one embedding index: one HNSW graph (usearch) per
// tenant and data source, held in memory, saved under DATA_DIR/vectors, and kept in step with the
// vec0 table (the source of truth) through the vector_changes log that triggers on chunks write.
//
// Why one graph per data source: a collection is a set of sources, so taking the k nearest of each
// of its sources' graphs and merging gives the k nearest of the collection itself — never a
// filtered global top-k, and no recall loss when a collection is a small share of its tenant.
// A graph that is missing, unreadable or cannot be replayed to the present is rebuilt in the
// background; until it is ready (and while it catches up with a large batch of changes) its source
// is searched exactly by sqlite-vec, so an answer never misses a vector the store holds.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Index, MetricKind, ScalarKind } from "usearch";
import type { DB } from "../db.js";
import { vectorTable } from "./json.js";

export interface AnnSettings {
  /** directory of the saved graphs (DATA_DIR/vectors) */
  dir: string;
  /** HNSW M: links per node */
  connectivity: number;
  /** HNSW ef at build time */
  expansionAdd: number;
  /** HNSW ef at query time (raised to k when k is larger) */
  expansionSearch: number;
  /** how the graph stores vectors; below f32, scores are recomputed exactly from vec0 */
  quantization: "f32" | "f16" | "i8";
}

// f32: the graph's distances are the exact cosine distances, so no rescoring pass is needed (one
// vec0 point lookup costs ~0.1 ms, 100 of them more than the graph search itself); f16 halves the
// memory and rescores the candidates from vec0 instead. See docs/decisions.md, "Vector index".
export const DEFAULT_ANN_SETTINGS: Omit<AnnSettings, "dir"> = { connectivity: 16, expansionAdd: 128, expansionSearch: 64, quantization: "f32" };

/** changes applied inline by a query before it searches; more than this and it searches exactly */
const INLINE_CATCH_UP = 256;
/** changes applied per background step (one step blocks the event loop for ~0.1 s at most) */
const STEP = 512;
const TICK_MS = 500;
const MIN_WANTED = 128;
const SAVE_AFTER_MS = 30_000;
/** threads of every graph insertion (see addChunks) */
const ADD_THREADS = Math.max(1, Math.min(os.availableParallelism(), 4));

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

interface Change {
  seq: number;
  tenant_id: string;
  data_source_id: string;
  chunk_id: number;
  op: number;
}

interface Meta {
  seq: number;
  count: number;
  dimension: number;
  quantization: string;
  connectivity: number;
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

const QUANTIZATION = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;

const keyOf = (tenantId: string, sourceId: string) => `${tenantId}\u0000${sourceId}`;
const safeName = (s: string) => (/^[A-Za-z0-9_-]{1,100}$/.test(s) ? s : encodeURIComponent(s).replace(/%/g, "~"));

export function createAnnIndex(db: DB, indexName: string, dimension: number, settings: AnnSettings, onError: (err: unknown) => void) {
  const table = vectorTable(indexName);
  const dir = path.join(settings.dir, safeName(indexName));
  const parts = new Map<string, Partition>();
  let applied = 0;
  let closed = false;
  let lastSave = Date.now();
  let timer: NodeJS.Timeout | null = null;

  // the AUTOINCREMENT counter, not max(seq): pruning may empty the log, the counter never goes back
  const maxSeq = db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'vector_changes'), 0) AS m");
  const prunedThrough = db.prepare("SELECT pruned_through AS p FROM vector_log_state WHERE id = 1");
  const changesSince = db.prepare(
    "SELECT seq, tenant_id, data_source_id, chunk_id, op FROM vector_changes WHERE index_name = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
  );
  const partitionChanges = db.prepare(
    `SELECT seq, tenant_id, data_source_id, chunk_id, op FROM vector_changes
     WHERE index_name = ? AND tenant_id = ? AND data_source_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
  );
  const laggingSources = db.prepare("SELECT DISTINCT tenant_id, data_source_id FROM vector_changes WHERE index_name = ? AND seq > ?");
  const storedCounts = db.prepare("SELECT tenant_id, data_source_id, count(*) AS n FROM chunks WHERE embedded_in = ? GROUP BY 1, 2");
  const storedIds = db.prepare("SELECT id FROM chunks WHERE embedded_in = ? AND tenant_id = ? AND data_source_id = ? ORDER BY id");
  const vectorOf = db.prepare(`SELECT embedding FROM ${table} WHERE chunk_id = ?`);
  const distanceOf = db.prepare(`SELECT vec_distance_cosine(embedding, ?) AS d FROM ${table} WHERE chunk_id = ?`);
  const prune = db.transaction((through: number) => {
    db.prepare("DELETE FROM vector_changes WHERE seq <= ?").run(through);
    db.prepare("UPDATE vector_log_state SET pruned_through = max(pruned_through, ?) WHERE id = 1").run(through);
  });

  const newIndex = () =>
    new Index({
      dimensions: dimension,
      metric: MetricKind.Cos,
      quantization: QUANTIZATION[settings.quantization],
      connectivity: settings.connectivity,
      expansion_add: settings.expansionAdd,
      expansion_search: settings.expansionSearch,
      multi: false,
    });
  const files = (p: { tenantId: string; sourceId: string }) => {
    const base = path.join(dir, safeName(p.tenantId), safeName(p.sourceId));
    return { graph: `${base}.usearch`, meta: `${base}.json` };
  };

  /** Adds (or replaces) the current vectors of these chunks; chunks without one are skipped. */
  function addChunks(p: Partition, ids: number[]): void {
    const keys: bigint[] = [];
    const matrix = new Float32Array(ids.length * dimension);
    for (const id of ids) {
      const row = vectorOf.get(BigInt(id)) as { embedding: Buffer } | undefined;
      if (!row || row.embedding.byteLength !== dimension * 4) continue; // deleted since the change was logged
      const key = BigInt(id);
      if (p.index.contains(key)) p.index.remove(key);
      const b = row.embedding;
      // a Float32Array view needs 4-byte alignment, which a pooled Buffer does not promise
      const v = b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, dimension) : new Float32Array(new Uint8Array(b).buffer);
      matrix.set(v, keys.length * dimension);
      keys.push(key);
    }
    if (keys.length === 0) return;
    // Always the same thread count: usearch sizes its per-thread insertion contexts when an add
    // grows the graph, so a small single-thread add that grew it left one context, and the next
    // two-thread add within that capacity failed ("Reserve capacity ahead of insertions!") and was
    // retried forever by the catch-up (found by the 1,000,000-chunk bench).
    p.index.add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * dimension), ADD_THREADS);
  }

  /** Applies logged changes to one graph; only the last change of each chunk matters. */
  function applyChanges(p: Partition, rows: Change[]): void {
    const last = new Map<number, number>();
    for (const r of rows) last.set(r.chunk_id, r.op);
    const adds: number[] = [];
    for (const [id, op] of last) {
      if (op === 1) adds.push(id);
      else p.index.remove(BigInt(id));
    }
    addChunks(p, adds);
    if (rows.length) p.dirty = true;
  }

  /** Applies up to `budget` logged changes to the ready graphs; returns how many remain. */
  function catchUp(budget: number): number {
    const { m: max } = maxSeq.get() as { m: number };
    if (max <= applied) return 0;
    if ((prunedThrough.get() as { p: number }).p > applied) {
      // another process saved the graphs and pruned the log past us: reload from its files
      reopen();
      return catchUp(budget);
    }
    const rows = changesSince.all(indexName, applied, max, budget) as Change[];
    const byPart = new Map<string, Change[]>();
    for (const r of rows) {
      // push, not spread: close() drains the whole log in one call, and copying the list for each
      // row made a million-row backlog quadratic (the 1,000,000-chunk bench sat in close for 80 min)
      const k = keyOf(r.tenant_id, r.data_source_id);
      const list = byPart.get(k);
      if (list) list.push(r);
      else byPart.set(k, [r]);
    }
    for (const [k, list] of byPart) {
      let p = parts.get(k);
      if (!p) {
        if (!list.some((r) => r.op === 1)) continue;
        p = { tenantId: list[0].tenant_id, sourceId: list[0].data_source_id, index: newIndex(), state: "ready", savedSeq: 0, snapshotSeq: 0, dirty: true };
        parts.set(k, p);
      }
      if (p.state === "ready") applyChanges(p, list); // a graph being built replays its changes when done
    }
    applied = rows.length < budget ? max : rows[rows.length - 1].seq;
    return max - applied;
  }

  /** Builds a graph from the store's vectors, in steps that let queries run in between. */
  async function build(p: Partition): Promise<void> {
    p.state = "building";
    p.index = newIndex();
    let ids: number[] = [];
    db.transaction(() => {
      p.snapshotSeq = (maxSeq.get() as { m: number }).m;
      ids = (storedIds.all(indexName, p.tenantId, p.sourceId) as { id: number }[]).map((r) => r.id);
    })();
    for (let i = 0; i < ids.length; i += STEP) {
      if (closed) return;
      addChunks(p, ids.slice(i, i + STEP));
      await new Promise((res) => setImmediate(res));
    }
    // changes up to `applied` passed this graph by while it was built; later ones reach it as ready
    applyChanges(p, partitionChanges.all(indexName, p.tenantId, p.sourceId, p.snapshotSeq, applied) as Change[]);
    p.state = "ready";
    p.dirty = true;
    p.savedSeq = 0;
  }

  let building: Promise<void> = Promise.resolve();
  function scheduleBuild(p: Partition): void {
    p.state = "building";
    building = building.then(() => (closed ? undefined : build(p).catch(onError)));
  }

  /** Loads a saved graph if it matches the settings and can be replayed to `upTo`. */
  function load(p: Partition, upTo: number, pruned: number, expected: number): boolean {
    const f = files(p);
    let meta: Meta;
    try {
      meta = JSON.parse(fs.readFileSync(f.meta, "utf8")) as Meta;
    } catch {
      return false;
    }
    const compatible = meta.dimension === dimension && meta.quantization === settings.quantization && meta.connectivity === settings.connectivity;
    if (!compatible || meta.seq < pruned || meta.seq > upTo || !fs.existsSync(f.graph)) return false;
    try {
      p.index.load(f.graph);
    } catch {
      return false;
    }
    p.savedSeq = meta.seq;
    applyChanges(p, partitionChanges.all(indexName, p.tenantId, p.sourceId, meta.seq, upTo) as Change[]);
    // the count is the last guard: a graph from another copy of the data never passes for this one
    return p.index.size() === expected;
  }

  /** Loads, repairs or schedules a rebuild of every graph the store's vectors call for. */
  function reopen(): void {
    const upTo = (maxSeq.get() as { m: number }).m;
    const pruned = (prunedThrough.get() as { p: number }).p;
    parts.clear();
    const counts = storedCounts.all(indexName) as { tenant_id: string; data_source_id: string; n: number }[];
    for (const c of counts) {
      const p: Partition = { tenantId: c.tenant_id, sourceId: c.data_source_id, index: newIndex(), state: "ready", savedSeq: 0, snapshotSeq: 0, dirty: false };
      parts.set(keyOf(c.tenant_id, c.data_source_id), p);
      if (!load(p, upTo, pruned, c.n)) scheduleBuild(p);
    }
    applied = upTo;
    removeStaleFiles();
  }

  function removeStaleFiles(): void {
    const keep = new Set([...parts.values()].flatMap((p) => Object.values(files(p))));
    if (!fs.existsSync(dir)) return;
    for (const t of fs.readdirSync(dir)) {
      const td = path.join(dir, t);
      if (!fs.statSync(td).isDirectory()) continue;
      for (const f of fs.readdirSync(td)) if (!keep.has(path.join(td, f))) fs.rmSync(path.join(td, f), { force: true });
    }
  }

  /** Writes changed graphs (atomically: temp file, then rename) and prunes the log behind them. */
  function save(): void {
    let complete = true;
    for (const p of parts.values()) {
      if (p.state !== "ready") continue;
      const f = files(p);
      try {
        if (p.index.size() === 0) {
          fs.rmSync(f.graph, { force: true });
          fs.rmSync(f.meta, { force: true });
          p.savedSeq = 0;
        } else if (p.dirty || p.savedSeq < applied) {
          fs.mkdirSync(path.dirname(f.graph), { recursive: true });
          if (p.dirty || p.savedSeq === 0) {
            p.index.save(`${f.graph}.${process.pid}.tmp`);
            fs.renameSync(`${f.graph}.${process.pid}.tmp`, f.graph);
          }
          const meta: Meta = { seq: applied, count: p.index.size(), dimension, quantization: settings.quantization, connectivity: settings.connectivity };
          fs.writeFileSync(`${f.meta}.${process.pid}.tmp`, JSON.stringify(meta));
          fs.renameSync(`${f.meta}.${process.pid}.tmp`, f.meta);
          p.savedSeq = applied;
        }
        p.dirty = false;
      } catch (err) {
        complete = false;
        onError(err);
      }
    }
    lastSave = Date.now();
    // graphs being built replay from their snapshot, so the log must keep what follows it
    const through = Math.min(applied, ...[...parts.values()].filter((p) => p.state === "building").map((p) => p.snapshotSeq));
    if (complete && through > 0) prune(through);
  }

  function tick(): void {
    if (closed || !db.open) return; // a store closed without close() (a crash, in tests) stops here
    try {
      const remaining = catchUp(STEP);
      if (remaining > 0) {
        timer = setTimeout(tick, 0);
        return;
      }
      if ([...parts.values()].some((p) => p.dirty) && Date.now() - lastSave > SAVE_AFTER_MS) save();
    } catch (err) {
      onError(err);
    }
    timer = setTimeout(tick, TICK_MS);
    timer.unref();
  }

  return {
    /** loads or repairs the saved graphs and starts background rebuilds and catch-up */
    open(): void {
      reopen();
      timer = setTimeout(tick, TICK_MS);
      timer.unref();
    },

    /**
     * The nearest chunks of these sources from their graphs, plus the sources that must be
     * searched exactly now (graph still building, or behind on a large batch of changes).
     */
    search(tenantId: string, sourceIds: string[], vector: Float32Array, k: number): { hits: AnnHit[]; exactSources: string[] } {
      const remaining = catchUp(INLINE_CATCH_UP);
      const lagging = new Set<string>();
      if (remaining > 0) {
        for (const r of laggingSources.all(indexName, applied) as { tenant_id: string; data_source_id: string }[]) {
          lagging.add(keyOf(r.tenant_id, r.data_source_id));
        }
      }
      const hits: AnnHit[] = [];
      const exactSources: string[] = [];
      for (const s of sourceIds) {
        const key = keyOf(tenantId, s);
        const p = parts.get(key);
        if ((p && p.state !== "ready") || lagging.has(key)) exactSources.push(s);
        else if (p && p.index.size() > 0) {
          // usearch searches with ef = max(expansion, wanted): asking for at least MIN_WANTED makes
          // a small graph's search nearly exhaustive and lifts recall at small k, for little cost
          const m = p.index.search(vector, Math.min(Math.max(k, MIN_WANTED), p.index.size()), 1);
          for (let i = 0; i < Math.min(k, m.keys.length); i++) hits.push({ chunkId: Number(m.keys[i]), distance: m.distances[i] });
        }
      }
      return { hits, exactSources };
    },

    /** the graph's distances are exact (f32), no rescoring needed */
    exactInGraph: settings.quantization === "f32",

    /** exact cosine distances of these chunks to the query (for quantized graphs) */
    exactDistances(ids: number[], vector: Float32Array): Map<number, number> {
      const q = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
      const out = new Map<number, number>();
      for (const id of ids) {
        const r = distanceOf.get(q, BigInt(id)) as { d: number } | undefined;
        if (r) out.set(id, r.d);
      }
      return out;
    },

    status(): AnnStatus {
      let vectors = 0;
      let buildingCount = 0;
      for (const p of parts.values()) {
        if (p.state === "ready") vectors += p.index.size();
        else buildingCount++;
      }
      const { m: max } = maxSeq.get() as { m: number };
      return { kind: `hnsw (usearch, M ${settings.connectivity}, ${settings.quantization})`, partitions: parts.size, vectors, building: buildingCount, behind: max - applied };
    },

    /** resolves when no graph is being built (tests, benchmarks) */
    async whenBuilt(): Promise<void> {
      await building;
    },

    /** applies every pending change now (tests, benchmarks) */
    catchUpAll(): void {
      while (catchUp(STEP) > 0);
    },

    save,

    close(): void {
      closed = true;
      if (timer) clearTimeout(timer);
      try {
        catchUp(Number.MAX_SAFE_INTEGER);
        save();
      } catch (err) {
        onError(err);
      }
    },
  };
}

export type AnnIndex = ReturnType<typeof createAnnIndex>;
