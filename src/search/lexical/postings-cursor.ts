// A term's postings in the in-memory index (bm25-index.ts): the base segment's range then the
// term's delta, addressed as one list sorted by doc id, with galloping seek for MaxScore.

/** A term's postings: base range then delta, addressed as one sorted list. */
export class PostingsCursor {
  i = 0;
  readonly n: number;
  private readonly bn: number;
  constructor(
    private readonly bDocs: Uint32Array,
    private readonly bTfs: Uint16Array,
    private readonly from: number,
    to: number,
    private readonly delta: number[] | undefined,
  ) {
    this.bn = to - from;
    this.n = this.bn + (delta ? delta.length >> 1 : 0);
  }
  docAt(i: number): number {
    return i < this.bn ? this.bDocs[this.from + i]! : this.delta![(i - this.bn) << 1]!;
  }
  doc(): number {
    return this.i < this.n ? this.docAt(this.i) : 0xffffffff;
  }
  tf(): number {
    const i = this.i;
    return i < this.bn ? this.bTfs[this.from + i]! : this.delta![((i - this.bn) << 1) + 1]!;
  }
  /** moves to the first posting with doc >= target (galloping, then binary search) */
  seek(target: number): void {
    if (this.i >= this.n || this.docAt(this.i) >= target) return;
    let lo = this.i;
    let step = 1;
    let hi = lo + step;
    while (hi < this.n && this.docAt(hi) < target) {
      lo = hi;
      step <<= 1;
      hi = lo + step;
    }
    if (hi > this.n) hi = this.n;
    // invariant: docAt(lo) < target, docAt(hi) >= target or hi == n
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (this.docAt(mid) < target) lo = mid;
      else hi = mid;
    }
    this.i = hi;
  }
}
