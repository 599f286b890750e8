// One tenant's in-memory BM25 index: exact statistics over the tenant's live chunks and MaxScore
// top-k retrieval (Turtle & Flood 1995, as in Lucene and Xapian), which skips documents that can
// no longer reach the top k instead of scoring every posting.
//
// Layout (typed arrays, no object per posting or per term):
// - docs get dense local ids in arrival order; per doc: key (the chunk's rowid), length, source
//   ordinal, alive flag;
// - postings of the "base" segment in CSR form (offsets per term, doc ids and packed field
//   frequencies in two flat arrays), plus a small "delta" per term for chunks added since the last
//   merge. Delta doc ids are all larger than base ones, so a term's list is base then delta,
//   sorted by doc id.
// - a delete clears the alive flag and subtracts the chunk's length and document frequencies at
//   once, so N, avgdl and df are always those of the live chunks; dead postings are skipped and
//   dropped at the next merge.
//
// Scores are bm25.ts's (SQLite FTS5's bm25()), so rankings match what the service returned
// before, minus the residue of deleted rows.
import type { ChunkTerms } from "./analyze.js";
import { idf, tfFactor, weighted } from "./bm25.js";
import { PostingsCursor } from "./postings-cursor.js";
import { TopK } from "./top-k.js";
import { termWeight, type LexicalWeights, type QueryTerm, type TermFrequency } from "./types.js";

export interface IndexHit {
  key: number;
  score: number;
  /** per query term (in the order given): the doc contains it */
  present: boolean[];
}

/** a typed array at least `need` long (doubling), its contents kept */
function grow<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2, 16));
  b.set(a);
  return b;
}

export class Bm25Index {
  // docs
  private keys = new Float64Array(16);
  private lens = new Uint32Array(16);
  private srcs = new Uint32Array(16);
  private alive = new Uint8Array(16);
  private nDocs = 0;
  private live = 0;
  private totalLen = 0;
  private dead = 0;
  private readonly byKey = new Map<number, number>();
  // terms
  private dict = new Map<string, number>();
  private names: string[] = [];
  private dfs = new Int32Array(16);
  // base segment (CSR) and delta
  private baseOff = new Uint32Array(1);
  private baseDocs = new Uint32Array(0);
  private baseTfs = new Uint16Array(0);
  private delta = new Map<number, number[]>();
  private deltaPostings = 0;
  /** flat postings of a load in parts (startLoad .. finishLoad), in arrival order */
  private loading: { pt: Uint32Array; pd: Uint32Array; pf: Uint16Array; n: number } | null = null;
  /**
   * Per-term maximum of the BM25 tf factor over its postings, for `ubWeights` and an average
   * length `ubAvgdl` at or above the current one (the factor grows with avgdl, so the bound stays
   * valid while the index shrinks or grows a little). NaN = not computed yet (done on first use
   * by one scan of the list, kept up to date on adds; deletes only lower the true maximum).
   */
  private ub = new Float64Array(16).fill(NaN);
  private ubWeights: LexicalWeights = { title: NaN, headings: NaN, body: NaN };
  private ubAvgdl = 0;
  /** term ids in term order, for prefix bands of the dictionary (typos, prefixes); sorted on first use, dropped by merge() */
  private sorted: Uint32Array | null = null;
  private changes = 0;

  /** changes whenever a term's df may have changed: what a cache of the dictionary checks */
  get generation(): number {
    return this.changes;
  }

  get docCount(): number {
    return this.live;
  }
  get avgdl(): number {
    return this.live ? this.totalLen / this.live : 0;
  }
  /** live chunks containing the term */
  df(term: string): number {
    const t = this.dict.get(term);
    return t === undefined ? 0 : this.dfs[t]!;
  }
  has(key: number): boolean {
    return this.byKey.has(key);
  }
  lengthOf(key: number): number {
    const d = this.byKey.get(key);
    return d === undefined ? 0 : this.lens[d]!;
  }

  private termId(term: string): number {
    let t = this.dict.get(term);
    if (t === undefined) {
      t = this.names.length;
      this.names.push(term);
      this.dict.set(term, t);
      const n = t + 1;
      this.dfs = grow(this.dfs, n);
      if (n > this.ub.length) {
        const ub = new Float64Array(Math.max(n, this.ub.length * 2)).fill(NaN);
        ub.set(this.ub);
        this.ub = ub;
      }
      this.ub[t] = NaN;
    }
    return t;
  }

  private newDoc(key: number, source: number, length: number): number {
    const d = this.nDocs++;
    const n = d + 1;
    this.keys = grow(this.keys, n);
    this.lens = grow(this.lens, n);
    this.srcs = grow(this.srcs, n);
    this.alive = grow(this.alive, n);
    this.keys[d] = key;
    this.lens[d] = length;
    this.srcs[d] = source;
    this.alive[d] = 1;
    this.byKey.set(key, d);
    this.live++;
    this.totalLen += length;
    return d;
  }

  /** Adds a chunk (ignored when the key is present). */
  add(key: number, source: number, chunk: ChunkTerms): void {
    if (this.byKey.has(key)) return;
    this.changes++;
    const d = this.newDoc(key, source, chunk.length);
    chunk.terms.forEach((term, i) => {
      const t = this.termId(term);
      const tf = chunk.tfs[i]!;
      this.dfs[t]!++;
      const u = this.ub[t]!;
      if (u === u) {
        const f = tfFactor(weighted(tf, this.ubWeights), chunk.length, this.ubAvgdl);
        if (f > u) this.ub[t] = f;
      }
      let list = this.delta.get(t);
      if (!list) this.delta.set(t, (list = []));
      list.push(d, tf);
    });
    this.deltaPostings += chunk.terms.length;
    if (this.deltaPostings > Math.max(20_000, this.baseDocs.length / 8)) this.merge();
  }

  /**
   * Adds many chunks at once (a tenant's load): postings go into flat arrays and are put in term
   * order with one counting sort, straight into the base segment.
   */
  bulkAdd(chunks: Iterable<{ key: number; source: number; chunk: ChunkTerms }>): void {
    if (this.nDocs > 0) {
      for (const c of chunks) this.add(c.key, c.source, c.chunk);
      return;
    }
    this.startLoad();
    this.loadMore(chunks);
    this.finishLoad();
  }

  /**
   * bulkAdd in parts, for a tenant read page by page: each page's rows become flat postings at
   * once and can be dropped, instead of holding every row until the end (at 1,000,000 chunks the
   * rows' strings took more memory than the index). Searching before finishLoad() misses postings.
   */
  startLoad(): void {
    if (this.nDocs > 0 || this.loading) throw new Error("startLoad() needs an empty index that is not loading");
    this.loading = { pt: new Uint32Array(1 << 16), pd: new Uint32Array(1 << 16), pf: new Uint16Array(1 << 16), n: 0 };
  }

  loadMore(chunks: Iterable<{ key: number; source: number; chunk: ChunkTerms }>): void {
    const l = this.loading;
    if (!l) throw new Error("loadMore() without startLoad()");
    this.changes++;
    for (const { key, source, chunk } of chunks) {
      if (this.byKey.has(key)) continue;
      const d = this.newDoc(key, source, chunk.length);
      const need = l.n + chunk.terms.length;
      if (need > l.pt.length) {
        l.pt = grow(l.pt, need);
        l.pd = grow(l.pd, need);
        l.pf = grow(l.pf, need);
      }
      chunk.terms.forEach((term, i) => {
        const t = this.termId(term);
        this.dfs[t]!++;
        l.pt[l.n] = t;
        l.pd[l.n] = d;
        l.pf[l.n++] = chunk.tfs[i]!;
      });
    }
  }

  /** Puts the loaded postings in term order (one counting sort) as the base segment. */
  finishLoad(): void {
    const l = this.loading;
    if (!l) throw new Error("finishLoad() without startLoad()");
    this.loading = null;
    const { pt, pd, pf, n: np } = l;
    const nT = this.names.length;
    const off = new Uint32Array(nT + 1);
    for (let i = 0; i < np; i++) off[pt[i]! + 1]!++;
    for (let t = 0; t < nT; t++) off[t + 1]! += off[t]!;
    const fill = off.slice(0, nT);
    const docs = new Uint32Array(np);
    const tfs = new Uint16Array(np);
    for (let i = 0; i < np; i++) {
      const p = fill[pt[i]!]!++;
      docs[p] = pd[i]!;
      tfs[p] = pf[i]!;
    }
    this.baseOff = off;
    this.baseDocs = docs;
    this.baseTfs = tfs;
    this.ub = new Float64Array(Math.max(nT, 16)).fill(NaN);
  }

  /** Removes a chunk; `terms` are its distinct terms as added. Unknown keys are ignored. */
  remove(key: number, terms: readonly string[]): void {
    const d = this.byKey.get(key);
    if (d === undefined) return;
    this.changes++;
    this.byKey.delete(key);
    this.alive[d] = 0;
    this.live--;
    this.totalLen -= this.lens[d]!;
    this.dead++;
    for (const term of terms) {
      const t = this.dict.get(term);
      if (t !== undefined) this.dfs[t]!--;
    }
    if (this.dead > Math.max(1000, this.nDocs / 4)) this.merge();
  }

  /**
   * Folds the delta into the base segment and drops dead docs and unused terms, renumbering docs
   * densely. Bounds are recomputed from the live postings, which tightens them after deletes.
   */
  merge(): void {
    const remap = new Uint32Array(this.nDocs);
    let nd = 0;
    for (let d = 0; d < this.nDocs; d++) if (this.alive[d]) remap[d] = nd++;
    const nTerms = this.names.length;
    const counts = new Uint32Array(nTerms);
    for (let t = 0; t < nTerms; t++) {
      const cur = this.cursor(t);
      for (; cur.i < cur.n; cur.i++) if (this.alive[cur.docAt(cur.i)]) counts[t]!++;
    }
    const termMap = new Int32Array(nTerms).fill(-1);
    const names: string[] = [];
    for (let t = 0; t < nTerms; t++) if (counts[t]! > 0) termMap[t] = names.push(this.names[t]!) - 1;
    const off = new Uint32Array(names.length + 1);
    for (let t = 0; t < nTerms; t++) if (termMap[t]! >= 0) off[termMap[t]! + 1] = counts[t]!;
    for (let i = 0; i < names.length; i++) off[i + 1]! += off[i]!;
    const docs = new Uint32Array(off[names.length]!);
    const tfs = new Uint16Array(docs.length);
    const newLens = new Uint32Array(Math.max(nd, 16));
    for (let d = 0; d < this.nDocs; d++) if (this.alive[d]) newLens[remap[d]!] = this.lens[d]!;
    this.dfs = new Int32Array(Math.max(names.length, 16));
    for (let t = 0; t < nTerms; t++) {
      const nt = termMap[t]!;
      if (nt < 0) continue;
      let p = off[nt]!;
      const cur = this.cursor(t);
      for (; cur.i < cur.n; cur.i++) {
        const d = cur.docAt(cur.i);
        if (!this.alive[d]) continue;
        const tf = cur.tf();
        docs[p] = remap[d]!;
        tfs[p++] = tf;
        this.dfs[nt]!++;
      }
    }
    const keys = new Float64Array(newLens.length);
    const srcs = new Uint32Array(newLens.length);
    const alive = new Uint8Array(newLens.length);
    this.byKey.clear();
    for (let d = 0; d < this.nDocs; d++) {
      if (!this.alive[d]) continue;
      const nd2 = remap[d]!;
      keys[nd2] = this.keys[d]!;
      srcs[nd2] = this.srcs[d]!;
      alive[nd2] = 1;
      this.byKey.set(this.keys[d]!, nd2);
    }
    this.keys = keys;
    this.srcs = srcs;
    this.alive = alive;
    this.lens = newLens;
    this.nDocs = nd;
    this.dead = 0;
    this.names = names;
    this.dict = new Map(names.map((n, i) => [n, i]));
    this.sorted = null;
    this.changes++;
    this.baseOff = off;
    this.baseDocs = docs;
    this.baseTfs = tfs;
    this.delta = new Map();
    this.deltaPostings = 0;
    this.ub = new Float64Array(this.dfs.length).fill(NaN);
  }

  /** The tf factor's maximum over term t's postings (see `ub`). */
  private upperBound(t: number): number {
    let u = this.ub[t]!;
    if (u !== u) {
      u = 0;
      const c = this.cursor(t);
      for (; c.i < c.n; c.i++) {
        const f = tfFactor(weighted(c.tf(), this.ubWeights), this.lens[c.docAt(c.i)]!, this.ubAvgdl);
        if (f > u) u = f;
      }
      this.ub[t] = u;
    }
    return u;
  }

  private prepareBounds(w: LexicalWeights, avgdl: number): void {
    const same = w.title === this.ubWeights.title && w.headings === this.ubWeights.headings && w.body === this.ubWeights.body;
    if (same && avgdl <= this.ubAvgdl) return;
    this.ubWeights = { title: w.title, headings: w.headings, body: w.body };
    this.ubAvgdl = avgdl * 1.25;
    this.ub.fill(NaN);
  }

  private cursor(t: number): PostingsCursor {
    const baseTerms = this.baseOff.length - 1;
    const from = t < baseTerms ? this.baseOff[t]! : 0;
    const to = t < baseTerms ? this.baseOff[t + 1]! : 0;
    return new PostingsCursor(this.baseDocs, this.baseTfs, from, to, this.delta.get(t));
  }

  /** Packed frequency of term t in doc d, 0 when absent. */
  private tfIn(t: number, d: number): number {
    const c = this.cursor(t);
    c.seek(d);
    return c.doc() === d ? c.tf() : 0;
  }

  /**
   * The k best live chunks for an OR of the terms whose source passes `allowed` (indexed by source
   * ordinal), best first; equal scores in arrival order. Scores are summed in query-term order
   * after selection, so a chunk's score does not depend on what pruning happened to skip.
   * `accept` (a search filter's chunk keys) narrows the candidates further, inside the scan: the
   * k best of the accepted chunks, never a filtered k best.
   */
  search(query: QueryTerm[], k: number, w: LexicalWeights, allowed: Uint8Array, accept?: (key: number) => boolean): IndexHit[] {
    if (k <= 0 || this.live === 0 || !allowed.includes(1)) return [];
    const avgdl = this.avgdl;
    const n = this.live;
    this.prepareBounds(w, avgdl);
    const qs = query
      .map((q, qi) => ({ qi, t: this.dict.get(q.term), w: termWeight(q) }))
      .filter((q): q is { qi: number; t: number; w: number } => q.t !== undefined && this.dfs[q.t]! > 0)
      .map((q) => {
        const weight = idf(n, this.dfs[q.t]!) * q.w;
        return { ...q, weight, ub: weight * this.upperBound(q.t), cur: this.cursor(q.t) };
      })
      .sort((a, b) => a.ub - b.ub);
    if (qs.length === 0) return [];
    const m = qs.length;
    const prefix = new Float64Array(m);
    qs.forEach((q, i) => (prefix[i] = q.ub + (i ? prefix[i - 1]! : 0)));
    const top = new TopK(k);
    let theta = -Infinity;
    let firstEssential = 0;
    const score1 = (q: (typeof qs)[number], d: number): number => q.weight * tfFactor(weighted(q.cur.tf(), w), this.lens[d]!, avgdl);
    for (;;) {
      let d = 0xffffffff;
      for (let i = firstEssential; i < m; i++) {
        const cd = qs[i]!.cur.doc();
        if (cd < d) d = cd;
      }
      if (d === 0xffffffff) break;
      if (!this.alive[d] || !allowed[this.srcs[d]!] || (accept !== undefined && !accept(this.keys[d]!))) {
        for (let i = firstEssential; i < m; i++) if (qs[i]!.cur.doc() === d) qs[i]!.cur.i++;
        continue;
      }
      let s = 0;
      for (let i = m - 1; i >= firstEssential; i--) {
        const q = qs[i]!;
        if (q.cur.doc() === d) {
          s += score1(q, d);
          q.cur.i++;
        }
      }
      for (let i = firstEssential - 1; i >= 0; i--) {
        if (s + prefix[i]! <= theta) break;
        const q = qs[i]!;
        q.cur.seek(d);
        if (q.cur.doc() === d) s += score1(q, d);
      }
      if (!top.full() || s > theta) {
        top.push(s, d);
        if (top.full()) {
          theta = top.min();
          while (firstEssential < m && prefix[firstEssential]! <= theta) firstEssential++;
          if (firstEssential >= m) break;
        }
      }
    }
    return this.finalScores(query, top, w, avgdl);
  }

  /**
   * Keys of every live chunk holding any of the terms, in sources passing `allowed` (and `accept`):
   * the whole matched set, unranked, for facet counts.
   */
  matchingKeys(query: QueryTerm[], allowed: Uint8Array, accept?: (key: number) => boolean): number[] {
    const seen = new Uint8Array(this.nDocs);
    const keys: number[] = [];
    for (const q of query) {
      const t = this.dict.get(q.term);
      if (t === undefined) continue;
      for (const c = this.cursor(t); c.i < c.n; c.i++) {
        const d = c.docAt(c.i);
        if (seen[d] || !this.alive[d] || !allowed[this.srcs[d]!]) continue;
        seen[d] = 1;
        if (accept === undefined || accept(this.keys[d]!)) keys.push(this.keys[d]!);
      }
    }
    return keys;
  }

  /** Canonical scores of the selected docs, summed in query order, sorted best first. */
  private finalScores(query: QueryTerm[], top: TopK, w: LexicalWeights, avgdl: number): IndexHit[] {
    const terms = query.map((q) => ({ t: this.dict.get(q.term), w: termWeight(q) }));
    const weights = terms.map((q) => (q.t === undefined || this.dfs[q.t]! <= 0 ? 0 : idf(this.live, this.dfs[q.t]!) * q.w));
    const hits: (IndexHit & { d: number })[] = [];
    for (let i = 0; i < top.size; i++) {
      const d = top.docs[i]!;
      let s = 0;
      const present = terms.map((q, qi) => {
        if (q.t === undefined || weights[qi] === 0) return false;
        const tf = this.tfIn(q.t, d);
        if (tf === 0) return false;
        s += weights[qi]! * tfFactor(weighted(tf, w), this.lens[d]!, avgdl);
        return true;
      });
      hits.push({ key: this.keys[d]!, score: s, present, d });
    }
    hits.sort((a, b) => b.score - a.score || a.d - b.d);
    return hits.map(({ key, score, present }) => ({ key, score, present }));
  }

  /** Every live matching chunk scored without pruning: the reference the tests hold search() to. */
  exhaustive(query: QueryTerm[], k: number, w: LexicalWeights, allowed: Uint8Array): IndexHit[] {
    const top = new TopK(Math.max(1, Math.min(k, this.live)));
    const avgdl = this.avgdl;
    const seen = new Set<number>();
    for (const q of query) {
      const t = this.dict.get(q.term);
      if (t === undefined) continue;
      const c = this.cursor(t);
      for (; c.i < c.n; c.i++) seen.add(c.docAt(c.i));
    }
    for (const d of [...seen].sort((a, b) => a - b)) {
      if (!this.alive[d] || !allowed[this.srcs[d]!]) continue;
      let s = 0;
      for (const q of query) {
        const t = this.dict.get(q.term);
        if (t === undefined || this.dfs[t]! <= 0) continue;
        const tf = this.tfIn(t, d);
        if (tf) s += idf(this.live, this.dfs[t]!) * termWeight(q) * tfFactor(weighted(tf, w), this.lens[d]!, avgdl);
      }
      if (!top.full() || s > top.min()) top.push(s, d);
    }
    return this.finalScores(query, top, w, avgdl);
  }

  /**
   * The live terms (df > 0) starting with `prefix`, with their df: a binary search of the terms in
   * order, then the terms added since they were sorted. Order of the results is not defined.
   */
  *termsStartingWith(prefix: string): Generator<TermFrequency> {
    const sorted = (this.sorted ??= this.sortTerms());
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.names[sorted[mid]!]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length; i++) {
      const t = sorted[i]!;
      const term = this.names[t]!;
      if (!term.startsWith(prefix)) break;
      if (this.dfs[t]! > 0) yield { term, df: this.dfs[t]! };
    }
    for (let t = sorted.length; t < this.names.length; t++) {
      const term = this.names[t]!;
      if (this.dfs[t]! > 0 && term.startsWith(prefix)) yield { term, df: this.dfs[t]! };
    }
  }

  private sortTerms(): Uint32Array {
    const ids = Uint32Array.from(this.names.keys());
    return ids.sort((a, b) => (this.names[a]! < this.names[b]! ? -1 : this.names[a]! > this.names[b]! ? 1 : 0));
  }

  /** Approximate bytes held (typed arrays and a rough per-term dictionary cost). */
  memoryBytes(): number {
    const arrays = [this.keys, this.lens, this.srcs, this.alive, this.dfs, this.ub, this.baseOff, this.baseDocs, this.baseTfs];
    return arrays.reduce((n, a) => n + a.byteLength, 0) + this.names.length * 80 + this.byKey.size * 40 + this.deltaPostings * 16;
  }
}
