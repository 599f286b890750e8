// A search's facets (issue 28 item 2): counts over the whole matched set, not the page. The
// matched set is every document with a chunk that matches the query lexically (a lexical or
// hybrid search; all of them, not the top candidates) plus the documents of the ranked list (which
// holds the vector candidates), all inside the filter (docs/decisions.md, "Facets").
import type { ChunkSearch } from "../store/content-store.js";
import type { SearchFilter } from "./filter/types.js";
import { FACET_VALUES, facetAnswer, type FacetField } from "./filter/facets.js";
import type { LexicalQuery } from "./lexical/types.js";

export async function facetCounts(
  content: ChunkSearch,
  tenantId: string,
  sourceIds: string[],
  /** the lexical query the search ran, with its synonyms, typo alternatives and completions (null: none ran) */
  lexical: LexicalQuery | null,
  o: { documentIds: string[]; filter?: SearchFilter },
  fields: FacetField[],
): Promise<Record<string, Record<string, number>>> {
  const rows = await content.facetCounts(
    tenantId,
    sourceIds,
    { query: lexical, documentIds: o.documentIds, ...(o.filter ? { filter: o.filter } : {}) },
    fields.map((f) => f.field),
    FACET_VALUES,
  );
  return facetAnswer(fields, rows);
}
