// Loads one layout (T tenants of S chunks) from the corpus stream into a runtime through the
// store's bulk paths, in batches, and makes the queries on the way (each from its planned chunk).
import type { Runtime } from "../../../runtime.js";
import { createBenchTenant, writeDocuments, type BenchTenant, type NewDocument } from "./adapter.js";
import { documentAt, type Corpus } from "./corpus.js";
import { makeQuery, planQueryChunks, type DfSample, type QueryKind } from "./queries.js";
import type { VectorSource } from "./vector-source.js";
import { createProgress, type Progress } from "./progress.js";
import { dealMetadata, type BenchMetadata } from "./filters.js";

export interface Layout {
  label: string;
  tenants: number;
  chunksPerTenant: number;
}

export interface DocRecord {
  ordinal: number;
  tenant: number;
  side: boolean;
  source: string;
  documentId: string;
  count: number;
  vectors: Float32Array[] | null;
  /** the filter bench's fields (--filters), else null */
  metadata: BenchMetadata | null;
}

export interface BenchQuery {
  q: number;
  tenant: number;
  kind: QueryKind;
  text: string;
  vector: Float32Array;
}

export interface Loaded {
  tenants: BenchTenant[];
  docs: DocRecord[];
  queries: BenchQuery[];
  chunks: number;
  composedChunks: number;
  /** wall time of the whole load (includes making vectors and queries) */
  buildMs: number;
  /** time spent inside the store's write calls: what Quarry itself took */
  writeMs: number;
  /** after the load: until the vector graphs had caught up with every stored vector */
  graphMs: number;
}

interface Pending {
  rec: DocRecord;
  doc: NewDocument;
}

const BATCH_CHUNKS = 2_000;

interface LoadState {
  rt: Runtime;
  corpus: Corpus;
  vectors: VectorSource;
  df: DfSample;
  seed: number;
  plan: Map<number, number[]>;
  out: Loaded;
  progress: Progress;
  ordinal: number;
  /** global chunk number of the next chunk */
  next: number;
  /** --filters: give documents the filter bench's metadata */
  filters: boolean;
}

async function flush(s: LoadState, t: BenchTenant, sourceId: string, batch: Pending[]): Promise<void> {
  if (batch.length === 0) return;
  const t0 = performance.now();
  const ids = await writeDocuments(s.rt, t.id, sourceId, batch.map((p) => p.doc));
  s.out.writeMs += performance.now() - t0;
  batch.forEach((p, i) => {
    p.rec.documentId = ids[i];
    s.out.docs.push(p.rec);
  });
  batch.length = 0;
}

async function planQueries(s: LoadState, tenant: number, chunks: string[], vectors: Float32Array[]): Promise<void> {
  for (let k = 0; k < chunks.length; k++) {
    for (const q of s.plan.get(s.next + k) ?? []) {
      const made = makeQuery(s.seed, q, chunks[k], s.df);
      if (made) s.out.queries.push({ q, tenant, ...made, vector: await s.vectors.queryVector(q, made.text, vectors[k]) });
    }
  }
}

/** the chunk counts of the documents a tenant of `size` chunks takes from ordinal `first` on (as loadTenant cuts them) */
function tenantDocumentSizes(corpus: Corpus, first: number, size: number): number[] {
  const sizes: number[] = [];
  for (let ordinal = first, left = size; left > 0; ordinal++) {
    const n = Math.min(documentAt(corpus, ordinal).chunks.length, left);
    sizes.push(n);
    left -= n;
  }
  return sizes;
}

async function loadTenant(s: LoadState, tenant: number, t: BenchTenant, size: number): Promise<void> {
  const main: Pending[] = [];
  const side: Pending[] = [];
  let left = size;
  let pendingChunks = 0;
  const metadata = s.filters ? dealMetadata(tenantDocumentSizes(s.corpus, s.ordinal, size)) : null;
  const first = s.ordinal;
  while (left > 0) {
    const ordinal = s.ordinal++;
    const doc = documentAt(s.corpus, ordinal);
    const chunks = doc.chunks.slice(0, left);
    const vectors = await s.vectors.documentVectors(ordinal, doc.source, chunks);
    await planQueries(s, tenant, chunks, vectors);
    const isSide = ordinal % 10 === 9;
    const m = metadata ? metadata[ordinal - first] : null;
    const rec: DocRecord = { ordinal, tenant, side: isSide, source: doc.source, documentId: "", count: chunks.length, vectors: s.vectors.keeps ? vectors : null, metadata: m };
    const newDoc: NewDocument = { source: `${doc.source}#${ordinal}`, title: doc.title, chunks, vectors, ...(m ? { metadata: m } : {}) };
    (isSide ? side : main).push({ rec, doc: newDoc });
    if (doc.origin === "composed") s.out.composedChunks += chunks.length;
    left -= chunks.length;
    s.next += chunks.length;
    pendingChunks += chunks.length;
    if (pendingChunks >= BATCH_CHUNKS || left === 0) {
      await flush(s, t, t.mainSourceId, main);
      await flush(s, t, t.sideSourceId, side);
      pendingChunks = 0;
      s.progress.update(s.next);
    }
  }
}

/** Builds the layout; every layout starts at the beginning of the stream, so they hold the same text. */
export async function loadLayout(
  rt: Runtime,
  corpus: Corpus,
  layout: Layout,
  vectors: VectorSource,
  df: DfSample,
  o: { queries: number; seed: number; filters: boolean },
): Promise<Loaded> {
  const { queries: queryCount, seed } = o;
  const total = layout.tenants * layout.chunksPerTenant;
  const starts = Array.from({ length: layout.tenants }, (_, t) => t * layout.chunksPerTenant);
  const out: Loaded = { tenants: [], docs: [], queries: [], chunks: 0, composedChunks: 0, buildMs: 0, writeMs: 0, graphMs: 0 };
  for (let t = 0; t < layout.tenants; t++) out.tenants.push(await createBenchTenant(rt, `Scale bench ${t + 1}`));
  const s: LoadState = {
    rt, corpus, vectors, df, seed,
    plan: planQueryChunks(seed, queryCount, starts, starts.map(() => layout.chunksPerTenant)),
    out,
    progress: createProgress(`loading ${layout.label}`, total),
    ordinal: 0,
    next: 0,
    filters: o.filters,
  };
  const t0 = performance.now();
  for (let t = 0; t < layout.tenants; t++) await loadTenant(s, t, out.tenants[t], layout.chunksPerTenant);
  out.buildMs = performance.now() - t0;
  s.progress.finish();
  out.chunks = s.next;
  out.queries.sort((a, b) => a.q - b.q);
  return out;
}
