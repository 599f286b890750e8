// Facet counts in PostgreSQL (ChunkSearch.facetCounts): the matched documents are those whose
// chunks hold a query term in the postings (inside the filter) plus the ones named; each field
// is counted with its own GROUP BY, all in one statement. Values keep their JSON type apart.
import type { Pool } from "../db.js";
import type { ChunkSearch } from "../../content-store.js";
import type { FilterField } from "../../../search/filter/types.js";
import type { FacetValue } from "../../../search/filter/facets.js";
import { COLUMN, META, filteredChunksSql, postgresFilter } from "./filter-sql.js";

type Row = { f: number; t: string; v: string; n: number };

/** the field's JSON type and text on `documents d` (strings, numbers, booleans); `param` binds a value */
function valueOf(field: FilterField, param: (v: unknown) => string): { t: string; v: string } {
  if (field.kind === "column") return { t: `CASE WHEN ${COLUMN[field.name]} IS NOT NULL THEN 'string' END`, v: COLUMN[field.name] };
  const j = `(${META} #> ${param(field.path)}::text[])`;
  return { t: `CASE WHEN jsonb_typeof(${j}) IN ('string', 'number', 'boolean') THEN jsonb_typeof(${j}) END`, v: `(${j} #>> '{}')` };
}

const typed = (r: Row): FacetValue["value"] => (r.t === "number" ? Number(r.v) : r.t === "boolean" ? r.v === "true" : r.v);

export function facetMethods(pool: Pool): Pick<ChunkSearch, "facetCounts"> {
  return {
    async facetCounts(tenantId, sourceIds, matched, fields, cap) {
      if (sourceIds.length === 0 || fields.length === 0) return fields.map(() => []);
      const params: unknown[] = [tenantId, sourceIds, matched.query?.terms.map((t) => t.term) ?? [], matched.documentIds, cap];
      const param = (v: unknown) => (params.push(v), `$${params.length}`);
      const f = matched.filter ? postgresFilter(matched.filter, params.length + 1) : null;
      if (f) params.push(...f.params);
      // materialised first, as in vector-search.ts: inlined, the planner may test documents per posting
      const cte = f ? `allowed AS MATERIALIZED (${filteredChunksSql(f.sql, "$1", "$2")}), ` : "";
      const allowed = f ? " AND p.chunk_id IN (SELECT id FROM allowed)" : "";
      const counts = fields.map((field, i) => {
        const x = valueOf(field, param);
        return `(SELECT ${i} AS f, x.t, x.v, count(*)::int AS n FROM documents d JOIN m ON d.tenant_id = $1 AND d.id = m.id
          CROSS JOIN LATERAL (SELECT ${x.t} AS t, ${x.v} AS v) x WHERE x.t IS NOT NULL
          GROUP BY x.t, x.v ORDER BY n DESC, x.v COLLATE "C", x.t LIMIT $5)`;
      });
      const r = await pool.query<Row>(
        `WITH ${cte}m AS MATERIALIZED (
           SELECT DISTINCT c.document_id AS id FROM lexical_postings p JOIN chunks c ON c.tenant_id = p.tenant_id AND c.id = p.chunk_id
           WHERE p.tenant_id = $1 AND p.term = ANY($3::text[]) AND p.data_source_id = ANY($2::text[])${allowed}
           UNION SELECT d.id FROM documents d WHERE d.tenant_id = $1 AND d.id = ANY($4::text[]))
         ${counts.join("\nUNION ALL ")}`,
        params,
      );
      const out: FacetValue[][] = fields.map(() => []);
      for (const row of r.rows) out[row.f]!.push({ value: typed(row), count: row.n });
      return out;
    },
  };
}
