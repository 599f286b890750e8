// What the collection labs train an adaptation on, from an evaluation set's passages only (never
// its questions): heading (or title) -> section pairs, every fifth held out as the service's guard
// scores them, and inverse-cloze pairs of each passage (collection-adapt-lab.ts,
// late-interaction-lab.ts).
import type { TextPair } from "../../model/corpus.js";
import type { Random } from "../../model/random.js";
import { words } from "../../model/mining/sections.js";
import type { AdaptPair } from "../../model/query-adapt.js";
import { ictPairs } from "../../model/sentences.js";
import type { EvalSet } from "../bench/model/sets.js";

export interface CollectionPairs {
  /** the training pairs: heading pairs not held out, and inverse-cloze pairs */
  train: TextPair[];
  /** every heading pair, as the held-out scoring ranks them */
  headings: AdaptPair[];
  /** the held-out ones among them: every fifth */
  asked: number[];
}

/** Heading -> section and inverse-cloze pairs of the set's passages; every fifth heading pair held out. */
export function collectionPairs(set: EvalSet, ictPerPassage: number, rnd: Random): CollectionPairs {
  const train: TextPair[] = [];
  const headings: AdaptPair[] = [];
  const asked: number[] = [];
  for (const p of set.passages) {
    const q = p.headings.at(-1) ?? p.title;
    if (q && words(p.body).length >= 5) {
      if (headings.length % 5 === 4) asked.push(headings.length);
      else train.push({ s: "heading", q, p: p.body });
      headings.push({ id: String(headings.length), query: q, passage: p.body });
    }
    train.push(...ictPairs(p.body, ictPerPassage, rnd));
  }
  return { train, headings, asked };
}
