// GET /collections/{id}/suggest (issue 28 item 4): completions of the word being typed, from the
// words of the collection's titles, headings and text. The word's completions in the tenant's term
// dictionary (search/lexical/prefix.ts) select the chunks that rank best for them inside the
// collection; the words of those chunks that begin with the typed word become the suggestions
// (search/lexical/suggest.ts), each with the text typed before it. Not counted as a query: a
// search box calls it on every keystroke. The logged service (analytics/analytics-search.ts) adds
// the collection's popular queries in front (analytics/popular-queries.ts, mergeSuggestions).
import { headingsField } from "../../search/lexical/analyze.js";
import { queryAnalyzer } from "../../search/lexical/languages.js";
import { cutStems, languageOf, prefixRange } from "../../search/lexical/prefix.js";
import { typedToken } from "../../search/lexical/query-rules.js";
import { completions, SUGGEST_FIELD_WEIGHTS } from "../../search/lexical/suggest.js";
import { charLength } from "../../search/lexical/term-dictionary.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { collectionOf } from "./search-requests.js";
import { settingsFor, type SearchDeps } from "./search-types.js";

/** completing stems read from the dictionary, the most frequent first */
const SUGGEST_TERMS = 50;
/** chunks whose words are counted */
const SUGGEST_CHUNKS = 40;

export async function suggestIn(deps: SearchDeps, p: Principal, collectionId: string, q: string, limit: number): Promise<{ suggestions: string[] }> {
  const c = await collectionOf(deps, p, collectionId);
  const token = typedToken(q);
  if (!token || c.data_source_ids.length === 0) return { suggestions: [] };
  const tenantId = tenantOf(p).id;
  const typed = token.norm;
  // the collection's language: its terms are the ones its chunks were indexed with
  const analyzer = queryAnalyzer(settingsFor(deps.settings, c.settings, c.language).language);
  const lang = languageOf(typed, analyzer);
  const own = [analyzer.term(typed), ...cutStems(typed, analyzer)].filter((t) => t !== "");
  const band = { ...prefixRange(typed, lang), minLength: charLength(lang + typed), limit: SUGGEST_TERMS };
  const answer = await deps.store.content.lexicalTerms(tenantId, { terms: own, ranges: [band] });
  const stems = new Set([...own.filter((t) => answer.df.has(t)), ...answer.ranges[0]!.map((t) => t.term)]);
  if (stems.size === 0) return { suggestions: [] };
  const query = { terms: [...stems].map((term) => ({ term, count: 1 })), phrases: [] };
  const hits = await deps.store.content.lexicalSearch(tenantId, c.data_source_ids, query, SUGGEST_CHUNKS, SUGGEST_FIELD_WEIGHTS);
  const chunks = await deps.store.content.hydrateChunks(
    tenantId,
    hits.map((h) => h.chunkId),
  );
  const fields = [...chunks.values()].map((h) => ({ title: h.title, headings: headingsField(h.heading_path), body: h.text }));
  const head = q.slice(0, token.start);
  return { suggestions: completions(fields, typed, stems, analyzer, limit).map((w) => head + w) };
}

