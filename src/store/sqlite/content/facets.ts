// Facet counts in SQLite (ChunkSearch.facetCounts): the matched chunks come from the in-memory
// BM25 index (every chunk holding a query term, inside the filter), their documents are counted
// per field value with one GROUP BY each. Values keep their JSON type apart (true is not 1).
import type { DB } from "../db.js";
import type { FilterField } from "../../../search/filter/types.js";
import type { FacetValue } from "../../../search/filter/facets.js";
import { COLUMN, jsonPath } from "./filter-sql.js";

type Row = { t: string; v: string | number; n: number };

/** the field's value and JSON type on `documents d`, strings, numbers and booleans only */
function valueOf(field: FilterField): { t: string; v: string; only: string; params: unknown[] } {
  if (field.kind === "column") return { t: "'text'", v: COLUMN[field.name], only: `${COLUMN[field.name]} IS NOT NULL`, params: [] };
  const p = jsonPath(field.path);
  return { t: "json_type(d.metadata, ?)", v: "json_extract(d.metadata, ?)", only: "json_type(d.metadata, ?) IN ('text', 'integer', 'real', 'true', 'false')", params: [p, p, p] };
}

export function facetCounts(db: DB, tenantId: string, chunkIds: number[], documentIds: string[], fields: FilterField[], cap: number): FacetValue[][] {
  const documents = db
    .prepare(
      `SELECT DISTINCT document_id FROM chunks WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))
       UNION SELECT id FROM documents WHERE tenant_id = ? AND id IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(tenantId, JSON.stringify(chunkIds), tenantId, JSON.stringify(documentIds)) as string[];
  if (documents.length === 0) return fields.map(() => []);
  const ids = JSON.stringify(documents);
  return fields.map((field) => {
    const x = valueOf(field);
    // the same order as PostgreSQL's: count, then the value as text, byte-wise
    const rows = db
      .prepare(
        `SELECT ${x.t} AS t, ${x.v} AS v, count(*) AS n FROM documents d
         WHERE d.tenant_id = ? AND d.id IN (SELECT value FROM json_each(?)) AND ${x.only}
         GROUP BY t, v ORDER BY n DESC, CAST(v AS TEXT), t LIMIT ?`,
      )
      .all(...x.params.slice(0, 2), tenantId, ids, ...x.params.slice(2), cap) as Row[];
    return rows.map((r) => ({ value: r.t === "true" ? true : r.t === "false" ? false : r.v, count: r.n }));
  });
}
