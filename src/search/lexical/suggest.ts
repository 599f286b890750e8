// Completions of the word being typed (GET /collections/{id}/suggest): the words, as written in
// the collection, that begin with it. The service finds the stems the word completes to in the
// term dictionary (prefix.ts) and the chunks that rank best for them, then this counts the words
// of those chunks' titles, headings and text that begin with the typed word and stem to one of
// those terms: a word in a title counts SUGGEST_FIELD_WEIGHTS.title times, and so on.
import type { Analyzer, ChunkFields } from "./analyze.js";
import { tokenizeWords } from "./tokenize.js";
import type { LexicalWeights } from "./types.js";

/** a title word says more about a collection than a word of its text */
export const SUGGEST_FIELD_WEIGHTS: LexicalWeights = { title: 4, headings: 2, body: 1 };

export function completions(fields: Iterable<ChunkFields>, typed: string, stems: ReadonlySet<string>, analyzer: Analyzer, limit: number): string[] {
  // per word (folded): its score and how it is most often written (lower case)
  const words = new Map<string, { score: number; forms: Map<string, number> }>();
  for (const f of fields) {
    for (const [field, text] of [["title", f.title], ["headings", f.headings], ["body", f.body]] as const) {
      for (const t of tokenizeWords(text)) {
        if (!t.norm.startsWith(typed) || !stems.has(analyzer.term(t.norm))) continue;
        let w = words.get(t.norm);
        if (!w) words.set(t.norm, (w = { score: 0, forms: new Map() }));
        w.score += SUGGEST_FIELD_WEIGHTS[field];
        const form = t.raw.toLowerCase();
        w.forms.set(form, (w.forms.get(form) ?? 0) + 1);
      }
    }
  }
  return [...words.entries()]
    .sort(([a, x], [b, y]) => y.score - x.score || a.length - b.length || (a < b ? -1 : 1))
    .slice(0, limit)
    .map(([, w]) => [...w.forms.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]);
}
