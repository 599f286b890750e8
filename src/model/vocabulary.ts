// The tokens that get a trained row: the most frequent ones of the training text (at least
// `minCount` occurrences), at most `size`. Every other token keeps its identity vector only.
import type { PairCorpus } from "./corpus.js";

export interface Vocabulary {
  tokens: string[];
  /** global token id -> row, or -1 */
  rowOf: Int32Array;
}

export function chooseVocabulary(corpus: PairCorpus, size: number, minCount: number): Vocabulary {
  const order: number[] = [];
  corpus.frequency.forEach((f, id) => {
    if (f >= minCount) order.push(id);
  });
  // frequency, then the token itself: the choice must not depend on the order of the input
  order.sort((a, b) => corpus.frequency[b]! - corpus.frequency[a]! || (corpus.tokens[a]! < corpus.tokens[b]! ? -1 : 1));
  const chosen = order.slice(0, size);
  const rowOf = new Int32Array(corpus.tokens.length).fill(-1);
  chosen.forEach((id, row) => (rowOf[id] = row));
  return { tokens: chosen.map((id) => corpus.tokens[id]!), rowOf };
}

/** Inverse document frequency over the passages, the weights' starting point. */
export function passageIdf(corpus: PairCorpus, id: number): number {
  const n = corpus.passages.offsets.length - 1;
  return Math.log((n + 1) / (corpus.passageDf[id]! + 0.5));
}
