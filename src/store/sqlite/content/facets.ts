// Facet counts in SQLite (ChunkSearch.facetCounts): the matched chunks come from the in-memory
// BM25 index (every chunk holding a query term, inside the filter), their documents are counted
// per field value from the in-memory columns (filter-table.ts), a pass over the matched
// documents per field instead of a JSON read per document per field. Values keep their JSON type
// apart (true is not 1); the order and cap are the SQL stores' (search/filter/facet-tally.ts).
import type { FilterField } from "../../../search/filter/types.js";
import type { FacetValue } from "../../../search/filter/facets.js";
import { tallyFacet } from "../../../search/filter/facet-tally.js";
import type { FilterTables } from "./filter-table.js";

export function facetCounts(tables: FilterTables, tenantId: string, chunkIds: number[], documentIds: string[], fields: FilterField[], cap: number): FacetValue[][] {
  const t = tables.table(tenantId, fields);
  const marked = new Uint8Array(t.size);
  const documents: number[] = [];
  const mark = (d: number | undefined) => {
    if (d === undefined || marked[d] || !t.alive[d]) return;
    marked[d] = 1;
    documents.push(d);
  };
  for (const c of chunkIds) mark(t.documentOf.get(c));
  for (const id of documentIds) mark(t.ordinal(id));
  return fields.map((f) => tallyFacet(t.column(f), documents, cap));
}
