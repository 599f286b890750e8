// The development split of the training pairs: a fixed, hash-chosen 2% of the documentation pairs
// that no model trains on (TrainSettings.devHoldOut). The dev proxy
// (src/evaluation/bench/model/dev-proxy.ts) builds a retrieval task from them, so settings such
// as the fusion of the model's vectors with BM25 are chosen without reading an evaluation set.
// A pair is recognised by its source and its query's distinct tokens in order, which both the
// trainer (token bags) and the proxy (pairs.jsonl text) can compute.
import { modelTokens } from "./tokenizer.js";

/** Dictionaries pair a headword with its gloss: not the question-and-page shape the proxy needs. */
const NOT_DEV = new Set(["gcide", "wordnet", "foldoc", "jargon", "vera"]);

/** One pair in DEV_MODULUS is held out. */
const DEV_MODULUS = 50;

/** FNV-1a over the source and the query's distinct tokens. */
function pairHash(source: string, distinctTokens: readonly string[]): number {
  let h = 0x811c9dc5;
  const text = `${source}\n${distinctTokens.join(" ")}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** True when the pair (its source, its query's distinct tokens in first-seen order) is in the dev split. */
export function isDevPair(source: string, distinctTokens: readonly string[]): boolean {
  if (NOT_DEV.has(source) || distinctTokens.length < 2) return false;
  return pairHash(source, distinctTokens) % DEV_MODULUS === 0;
}

/** The query's distinct tokens in first-seen order, as the corpus's bags hold them. */
export const distinctQueryTokens = (query: string): string[] => [...new Set(modelTokens(query))];
