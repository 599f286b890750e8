// One-edit misspellings of questions for the typo bench (issue 28 "Targets"): a seeded generator,
// so every run asks the same 200 queries. Each misspelling edits one word of 5+ letters that the
// parser keeps (not a stop word) by a deletion, an insertion, a substitution or a transposition of
// neighbours, at a random position after the first letter (typo tolerance keeps first letters,
// typos.ts) unless `firstLetter` allows it.
import { STOP_WORDS } from "../../../search/lexical/parse-query.js";
import { prng } from "../scale/rng.js";

export interface Misspelling {
  /** the question's id */
  id: string;
  question: string;
  misspelt: string;
  word: string;
  typo: string;
  edit: "deletion" | "insertion" | "substitution" | "transposition";
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const EDITS: Misspelling["edit"][] = ["deletion", "insertion", "substitution", "transposition"];

/** One edit of the word at a position from `from` on; never the word itself. */
export function editWord(word: string, edit: Misspelling["edit"], rand: () => number, from: number): string {
  const pick = (n: number) => Math.floor(rand() * n);
  const letter = (not: string) => {
    const options = [...LETTERS].filter((c) => c !== not);
    return options[pick(options.length)]!;
  };
  const i = from + pick(word.length - from);
  switch (edit) {
    case "deletion":
      return word.slice(0, i) + word.slice(i + 1);
    case "insertion":
      return word.slice(0, i) + letter("") + word.slice(i);
    case "substitution":
      return word.slice(0, i) + letter(word[i]!) + word.slice(i + 1);
    case "transposition": {
      const j = Math.min(i, word.length - 2);
      if (word[j] === word[j + 1]) return word.slice(0, j) + letter(word[j]!) + word.slice(j + 1);
      return word.slice(0, j) + word[j + 1] + word[j] + word.slice(j + 2);
    }
  }
}

/**
 * `count` misspelt questions, cycling through the questions in a seeded order; a question without
 * an editable word is skipped.
 */
export function misspell(questions: readonly { id: string; question: string }[], count: number, o: { seed: number; firstLetter: boolean }): Misspelling[] {
  const rand = prng(o.seed);
  const order = [...questions].map((q) => ({ q, k: rand() })).sort((a, b) => a.k - b.k).map((x) => x.q);
  const editable = order.filter((q) => wordsOf(q.question).length > 0);
  const out: Misspelling[] = [];
  for (let n = 0; out.length < count && editable.length > 0; n++) {
    const q = editable[n % editable.length]!;
    const words = wordsOf(q.question);
    const w = words[Math.floor(rand() * words.length)]!;
    const edit = EDITS[Math.floor(rand() * EDITS.length)]!;
    const typo = editWord(w.word, edit, rand, o.firstLetter ? 0 : 1);
    if (typo === w.word) continue;
    out.push({ id: q.id, question: q.question, misspelt: q.question.slice(0, w.at) + typo + q.question.slice(w.at + w.word.length), word: w.word, typo, edit });
  }
  return out;
}

function wordsOf(text: string): { word: string; at: number }[] {
  return [...text.matchAll(/[a-z]{5,}/g)].filter((m) => !STOP_WORDS.has(m[0]) && (m.index === 0 || !/[A-Za-z0-9]/.test(text[m.index - 1]!))).map((m) => ({ word: m[0], at: m.index }));
}
