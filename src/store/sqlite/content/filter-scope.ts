// The chunks a search filter lets through in SQLite: the filter evaluated once over the tenant's
// documents in memory (filter-table.ts; the same filter is not evaluated again while no document
// changes, so the lexical half, the vector half and the facets of one request share it), then
// their chunks in the searched sources. Both retrievers search inside this scope
// (lexical-index.ts through the index's accept test, search.ts for vectors), so a filtered search
// ranks the filtered chunks themselves.
import type { SearchFilter } from "../../../search/filter/types.js";
import { fieldsOf, type FilterTables } from "./filter-table.js";

export interface FilterScope {
  /** the chunk passes the filter and lies in the searched sources */
  has(chunkId: number): boolean;
  /** chunks that pass */
  readonly size: number;
  /** chunks in the searched sources, passing or not */
  readonly total: number;
  /** the ids of the chunks that pass */
  chunkIds(): number[];
}

export function filterScope(tables: FilterTables, tenantId: string, sourceIds: string[], filter: SearchFilter): FilterScope {
  const t = tables.table(tenantId, fieldsOf(filter));
  const pass = t.passing(filter, JSON.stringify(filter));
  const inSources = new Uint8Array(t.sources.size);
  for (const s of sourceIds) {
    const code = t.sources.get(s);
    if (code !== undefined) inSources[code] = 1;
  }
  const { alive, sourceOf, chunkCount, documentOf } = t;
  let size = 0;
  let total = 0;
  for (let d = 0; d < t.size; d++) {
    if (!alive[d] || !inSources[sourceOf[d]!]) continue;
    total += chunkCount[d]!;
    if (pass[d]) size += chunkCount[d]!;
  }
  const passes = (d: number) => pass[d] === 1 && inSources[sourceOf[d]!] === 1;
  return {
    size,
    total,
    has(chunkId) {
      const d = documentOf.get(chunkId);
      return d !== undefined && passes(d);
    },
    chunkIds() {
      const ids: number[] = [];
      for (let d = 0; d < t.size; d++) if (passes(d)) ids.push(...t.chunksOf(d));
      return ids;
    },
  };
}
