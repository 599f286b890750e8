// The best k (score, doc) pairs seen so far, for top-k retrieval (bm25-index.ts).

/** Min-heap of the best k (score, doc); ties keep the earlier doc. */
export class TopK {
  size = 0;
  readonly scores: Float64Array;
  readonly docs: Uint32Array;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.docs = new Uint32Array(k);
  }
  full(): boolean {
    return this.size >= this.k;
  }
  min(): number {
    return this.size ? this.scores[0]! : -Infinity;
  }
  private less(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.docs[a]! > this.docs[b]!);
  }
  private swap(a: number, b: number): void {
    const s = this.scores[a]!;
    this.scores[a] = this.scores[b]!;
    this.scores[b] = s;
    const d = this.docs[a]!;
    this.docs[a] = this.docs[b]!;
    this.docs[b] = d;
  }
  push(score: number, doc: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      this.scores[i] = score;
      this.docs[i] = doc;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.less(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    this.scores[0] = score;
    this.docs[0] = doc;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.less(l, m)) m = l;
      if (r < this.size && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
}
