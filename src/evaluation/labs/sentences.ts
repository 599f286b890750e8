// Sentences of prose for the inverse-cloze labs (ict-lab.ts, collection-adapt-lab.ts): one sentence
// of a passage becomes a query, the rest of the passage its answer.
import { words } from "../../model/mining/sections.js";

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
