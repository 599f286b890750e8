// Sentences of prose, and the inverse-cloze pairs made of them: one sentence of a passage becomes a
// query, the rest of the passage its answer. The whole-collection adaptation trains on them
// (evaluation/adaptation/adapt-model-run.ts), as do the labs (ict-lab.ts, collection-adapt-lab.ts).
import { words } from "./mining/sections.js";
import type { Random } from "./random.js";

export const MIN_SENTENCE_WORDS = 6;
export const MAX_SENTENCE_WORDS = 30;

/** A sentence that reads as prose: enough words, mostly alphabetic ones, no code punctuation. */
export function proseSentence(s: string): boolean {
  const w = words(s);
  if (w.length < MIN_SENTENCE_WORDS || w.length > MAX_SENTENCE_WORDS) return false;
  if (/[{}<>=;$\\|]|\(\)|::|->|=>/.test(s)) return false;
  return w.filter((x) => /^[A-Za-z][a-z'-]+[,.;:!?]?$/.test(x)).length >= 0.7 * w.length;
}

/** The text's sentences (split after . ! ? before a capital), trimmed, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Up to `perPassage` inverse-cloze pairs of a passage of three sentences or more: a prose sentence
 * drawn with `rnd` as the query, the other sentences as its passage.
 */
export function ictPairs(text: string, perPassage: number, rnd: Random): { s: "ict"; q: string; p: string }[] {
  const sentences = splitSentences(text);
  if (sentences.length < 3) return [];
  const candidates = sentences.map((s, i) => (proseSentence(s) ? i : -1)).filter((i) => i >= 0);
  const out: { s: "ict"; q: string; p: string }[] = [];
  for (let k = 0; k < perPassage && candidates.length > 0; k++) {
    const pick = candidates.splice(Math.floor(rnd.next() * candidates.length), 1)[0]!;
    out.push({ s: "ict", q: sentences[pick]!, p: sentences.filter((_, i) => i !== pick).join(" ") });
  }
  return out;
}
