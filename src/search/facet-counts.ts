// A search's facets (issue 28 item 2): counts over the whole matched set, not the page. The
// matched set is every document with a chunk that matches the query lexically (a lexical or
// hybrid search; all of them, not the top candidates) plus the documents of the ranked list (which
// holds the vector candidates), all inside the filter (docs/decisions.md, "Facets").
import type { ChunkSearch } from "../store/content-store.js";
import type { SearchFilter } from "./filter/types.js";
import { FACET_VALUES, facetAnswer, type FacetField } from "./filter/facets.js";
import { lexicalQueryOf } from "./lexical/analyze-query.js";
import { queryAnalyzer } from "./lexical/languages.js";
import type { SynonymTable } from "./lexical/synonyms.js";
import type { RetrievalMode } from "./engine.js";

export async function facetCounts(
  content: ChunkSearch,
  tenantId: string,
  sourceIds: string[],
  query: string,
  o: { mode: RetrievalMode; documentIds: string[]; filter?: SearchFilter; synonyms?: SynonymTable; language?: string },
  fields: FacetField[],
): Promise<Record<string, Record<string, number>>> {
  // analysed as the engine analyses it (the collection's language)
  const lexical = o.mode === "vector" ? null : lexicalQueryOf(query, queryAnalyzer(o.language), o.synonyms).lexical;
  const rows = await content.facetCounts(
    tenantId,
    sourceIds,
    { query: lexical, documentIds: o.documentIds, ...(o.filter ? { filter: o.filter } : {}) },
    fields.map((f) => f.field),
    FACET_VALUES,
  );
  return facetAnswer(fields, rows);
}
