// A parsed query through the analyzer: the LexicalQuery every store scores. The engine does it once
// per request, so stores never parse or analyse a query; query-time rules that change which index
// terms a query asks for belong here, between the parse and the stores.
import type { Analyzer } from "./analyze.js";
import { isEmptyQuery, parseQuery } from "./parse-query.js";
import { expandSynonyms, type SynonymTable } from "./synonyms.js";
import type { LexicalQuery, ParsedQuery, QueryTerm } from "./types.js";

/** Query words as index terms, grouped (each distinct term once, with how many words gave it), and phrases as index terms. */
export function analyzeQuery(query: ParsedQuery, analyzer: Analyzer): LexicalQuery {
  const terms = new Map<string, QueryTerm>();
  for (const word of query.terms) {
    for (const term of analyzer.terms(word)) {
      const q = terms.get(term);
      if (q) q.count++;
      else terms.set(term, { term, count: 1 });
    }
  }
  const phrases = query.phrases.map((p) => p.flatMap((w) => analyzer.terms(w))).filter((p) => p.length >= 2);
  return { terms: [...terms.values()], phrases };
}

/**
 * User text parsed once (the parse also feeds highlights), widened by the collection's synonyms
 * when it has any, and analysed; lexical is null when nothing in it is searchable.
 */
export function lexicalQueryOf(
  text: string,
  analyzer: Analyzer,
  synonyms?: SynonymTable,
): { parsed: ParsedQuery; lexical: LexicalQuery | null; synonymsApplied: boolean } {
  const { query: parsed, applied } = expandSynonyms(parseQuery(text), synonyms);
  return { parsed, lexical: isEmptyQuery(parsed) ? null : analyzeQuery(parsed, analyzer), synonymsApplied: applied };
}
