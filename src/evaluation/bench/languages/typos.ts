// The typo rows of the language bench: each question of a set misspelt VARIANTS times, every one of
// its words of 5+ letters that its language does not drop as a stop word by one edit (a deletion,
// insertion, substitution or transposition after the first letter, seeded; the other words would
// find most documents on their own), and hit@1 of the misspelt
// questions with typo tolerance off and on, in the set's own collection and in one "auto"
// collection of every set (search/lexical/expand.ts, query-languages.ts). Languages written without
// spaces get no typo budget (typos.ts) and no row.
import { lexicalQueryWithRules } from "../../../search/lexical/query-rules.js";
import { rankLexical } from "../../../search/lexical/rank.js";
import { analyzerFor, analyzerOfTerms, documentAnalyzer, queryAnalyzer } from "../../../search/lexical/languages.js";
import { answerLookup } from "../../../search/lexical/term-dictionary.js";
import { normalizeWord } from "../../../search/lexical/tokenize.js";
import { DEFAULT_LEXICAL_WEIGHTS } from "../../../search/engine.js";
import type { Analyzer } from "../../../search/lexical/analyze.js";
import { isUnspaced } from "../../../search/lexical/language-analyzers.js";
import { prng } from "../scale/rng.js";
import { indexOf } from "./evaluate.js";
import type { LanguageSet } from "./types.js";

export interface TypoScores {
  language: string;
  /** misspelt questions asked */
  misspelt: number;
  /** hit@1 of the misspelt questions, typo tolerance off, own language */
  off: number;
  /** ... on, own language */
  own: number;
  /** ... on, every set in one auto collection */
  auto: number;
}

const EDITS = ["deletion", "insertion", "substitution", "transposition"] as const;
/** misspelt versions of each question */
const VARIANTS = 3;

/** One edit of the word at a position after its first letter, letters drawn from `alphabet`. */
function edit(word: string, kind: (typeof EDITS)[number], alphabet: string[], rand: () => number): string {
  const w = [...word];
  const i = 1 + Math.floor(rand() * (w.length - 1));
  const other = () => {
    const options = alphabet.filter((c) => c !== w[i]);
    return options[Math.floor(rand() * options.length)]!;
  };
  if (kind === "deletion") w.splice(i, 1);
  else if (kind === "insertion") w.splice(i, 0, other());
  else if (kind === "substitution") w[i] = other();
  else {
    const j = Math.min(i, w.length - 2);
    if (w[j] === w[j + 1]) w[j] = other();
    else [w[j], w[j + 1]] = [w[j + 1]!, w[j]!];
  }
  return w.join("");
}

/** The set's questions misspelt (question index and text): those with no word to edit are left out. */
export function misspellSet(set: LanguageSet, seed = 28): { key: number; text: string }[] {
  const rand = prng(seed);
  const analyzer = analyzerFor(set.language);
  const alphabet = [...new Set([...normalizeWord(set.docs.join(" "))].filter((c) => /\p{L}/u.test(c)))];
  const editable = (w: string) => !isUnspaced(w) && analyzer.terms(normalizeWord(w)).length > 0;
  const out: { key: number; text: string }[] = [];
  let n = 0;
  set.questions.forEach((q, key) => {
    if (![...q.matchAll(/\p{L}{5,}/gu)].some((m) => editable(m[0]))) return;
    for (let v = 0; v < VARIANTS; v++) {
      const text = q.replace(/\p{L}{5,}/gu, (w) => (editable(w) ? edit(w.toLowerCase(), EDITS[n++ % EDITS.length]!, alphabet, rand) : w));
      out.push({ key, text });
    }
  });
  return out;
}

/** hit@1 of the questions over the documents indexed with `docAnalyzer`, the query analysed with `query`. */
async function typoHitAt1(docs: string[], questions: { key: number; text: string }[], docAnalyzer: (doc: string) => Analyzer, query: Analyzer, typos: boolean): Promise<number> {
  const { index, fields } = indexOf(docs, docAnalyzer);
  const allowed = new Uint8Array([1]);
  let hits = 0;
  for (const q of questions) {
    const { lexical } = await lexicalQueryWithRules(q.text, query, { typos, prefix: false }, async (l) => answerLookup(index, l));
    const top = lexical ? rankLexical(index, allowed, lexical, 1, DEFAULT_LEXICAL_WEIGHTS, fields, analyzerOfTerms(lexical.phrases)) : [];
    if (top[0]?.key === q.key) hits++;
  }
  return questions.length === 0 ? 0 : hits / questions.length;
}

export async function evaluateTypos(sets: LanguageSet[]): Promise<TypoScores[]> {
  const all = sets.flatMap((s) => s.docs);
  const rows: TypoScores[] = [];
  let offset = 0;
  for (const set of sets) {
    const questions = misspellSet(set);
    const from = offset;
    offset += set.docs.length;
    if (questions.length === 0) continue;
    const own = (typos: boolean) => typoHitAt1(set.docs, questions, () => analyzerFor(set.language), queryAnalyzer(set.language), typos);
    const pooled = questions.map((q) => ({ ...q, key: from + q.key }));
    const auto = await typoHitAt1(all, pooled, (d) => documentAnalyzer("auto", () => d), queryAnalyzer("auto"), true);
    rows.push({ language: set.language, misspelt: questions.length, off: await own(false), own: await own(true), auto });
  }
  return rows;
}
