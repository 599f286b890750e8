// Hard negatives: for each pair, the other passage that shares the most (idf-weighted) rare words
// with its query. Matched by words but not the answer, it teaches the table what in-batch
// negatives (random passages, easy to tell apart) cannot: to rank by meaning when words mislead.
import type { PairCorpus } from "./corpus.js";

/** Words in more passages than this are too common to point at a negative (and too costly to scan). */
const MAX_DF = 2000;

/** Passage postings of the rare words, as compressed rows (word id -> passage ids). */
function postings(corpus: PairCorpus): { start: Uint32Array; ids: Uint32Array } {
  const { passages, passageDf } = corpus;
  const nWords = passageDf.length;
  const start = new Uint32Array(nWords + 1);
  for (let w = 0; w < nWords; w++) start[w + 1] = start[w]! + (passageDf[w]! >= 2 && passageDf[w]! <= MAX_DF ? passageDf[w]! : 0);
  const ids = new Uint32Array(start[nWords]!);
  const fill = start.slice(0, nWords);
  const n = passages.offsets.length - 1;
  for (let p = 0; p < n; p++) {
    for (let k = passages.offsets[p]!; k < passages.offsets[p + 1]!; k++) {
      const w = passages.ids[k]!;
      if (start[w + 1]! > start[w]!) ids[fill[w]!++] = p;
    }
  }
  return { start, ids };
}

/** Share of text a's tokens that text b also has (bags hold distinct tokens). */
function overlap(bags: PairCorpus["queries"], a: number, b: number): number {
  const of = (i: number) => bags.ids.subarray(bags.offsets[i]!, bags.offsets[i + 1]!);
  const bs = new Set(of(b));
  const as = of(a);
  let shared = 0;
  for (const t of as) if (bs.has(t)) shared++;
  return as.length ? shared / as.length : 1;
}

/**
 * A usable negative asks something else and says something else: a pair mined twice (a heading
 * and a definition list over the same text, a headword and its variant) would be a false negative.
 */
const distinct = (c: PairCorpus, p: number, i: number): boolean => overlap(c.queries, p, i) < 1 && overlap(c.passages, p, i) < 0.6;

/** How many of the best-scoring candidates are checked for being distinct. */
const CANDIDATES = 8;

/** The CANDIDATES best-scoring passages other than `self`, best first (ties: lower index). */
function topCandidates(touched: number[], score: Float32Array, self: number): number[] {
  const top: number[] = [];
  const better = (a: number, b: number) => score[a]! > score[b]! || (score[a] === score[b] && a < b);
  for (const p of touched) {
    if (p === self) continue;
    if (top.length === CANDIDATES && !better(p, top[CANDIDATES - 1]!)) continue;
    let at = Math.min(top.length, CANDIDATES - 1);
    top[at] = p;
    while (at > 0 && better(top[at]!, top[at - 1]!)) {
      [top[at], top[at - 1]] = [top[at - 1]!, top[at]!];
      at--;
    }
  }
  return top;
}

/** For each pair, its hard negative's passage index, or -1 when no other passage shares a rare word. */
export function mineHardNegatives(corpus: PairCorpus): Int32Array {
  const { start, ids } = postings(corpus);
  const n = corpus.passages.offsets.length - 1;
  const score = new Float32Array(n);
  const touched: number[] = [];
  const out = new Int32Array(n).fill(-1);
  const q = corpus.queries;
  for (let i = 0; i < n; i++) {
    for (let k = q.offsets[i]!; k < q.offsets[i + 1]!; k++) {
      const w = q.ids[k]!;
      if (w >= corpus.passageDf.length) continue;
      const idf = Math.log(n / (corpus.passageDf[w]! + 1));
      for (let j = start[w]!; j < start[w + 1]!; j++) {
        const p = ids[j]!;
        if (score[p] === 0) touched.push(p);
        score[p] += idf;
      }
    }
    out[i] = topCandidates(touched, score, i).find((p) => distinct(corpus, p, i)) ?? -1;
    for (const p of touched) score[p] = 0;
    touched.length = 0;
  }
  return out;
}
