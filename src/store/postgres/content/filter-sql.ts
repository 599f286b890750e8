// The PostgreSQL dialect of search filters (store/filter-sql.ts): documents.metadata is JSON text,
// read as jsonb per candidate document; values travel as jsonb parameters, so jsonb's own
// equality and types decide (1 equals 1.0, "1" never equals 1). Strings order byte-wise
// (COLLATE "C"), as SQLite's BINARY does, so both stores answer a range alike.
import type { FilterScalar, SearchFilter } from "../../../search/filter/types.js";
import { filterSql, SQL_COMPARISON, type FilterDialect } from "../../filter-sql.js";

export const META = "(d.metadata::jsonb)";
const FILE_TYPE = `COALESCE(CASE WHEN jsonb_typeof(${META} -> 'file_type') = 'string' THEN ${META} ->> 'file_type' END, d.kind)`;
export const COLUMN = { data_source_id: "d.data_source_id", document_id: "d.id", file_type: FILE_TYPE, created_at: "d.created_at", updated_at: "d.updated_at" } as const;

/** `firstParam`: the number of the first placeholder ($n) the filter's parameters take */
export function postgresFilter(f: SearchFilter, firstParam: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${firstParam + params.length - 1}`);
  const at = (path: string[]) => `(${META} #> ${param(path)}::text[])`;
  const d: FilterDialect = {
    param,
    TRUE: "true",
    FALSE: "false",
    compare(field, cmp, value: FilterScalar) {
      if (field.kind === "column") return `COALESCE(${COLUMN[field.name]} COLLATE "C" ${SQL_COMPARISON[cmp]} ${param(value)}, false)`;
      const j = at(field.path);
      if (cmp === "eq") return `COALESCE(${j} = ${param(JSON.stringify(value))}::jsonb, false)`;
      if (typeof value === "number") return `COALESCE(jsonb_typeof(${j}) = 'number' AND (${j} #>> '{}')::numeric ${SQL_COMPARISON[cmp]} ${param(value)}::numeric, false)`;
      return `COALESCE(jsonb_typeof(${j}) = 'string' AND (${j} #>> '{}') COLLATE "C" ${SQL_COMPARISON[cmp]} ${param(value)}, false)`;
    },
    oneOf(field, values) {
      if (field.kind === "column") return `COALESCE(${COLUMN[field.name]} = ANY(${param(values)}::text[]), false)`;
      const j = at(field.path);
      // a scalar inside the array of values (an array or object stored there never matches)
      return `COALESCE(jsonb_typeof(${j}) IN ('string', 'number', 'boolean') AND ${param(JSON.stringify(values))}::jsonb @> jsonb_build_array(${j}), false)`;
    },
    exists(field) {
      if (field.kind === "column") return "true";
      return `(${at(field.path)} IS NOT NULL)`;
    },
  };
  return { sql: filterSql(f, d), params };
}

/**
 * The ids of the tenant's chunks in the sources whose documents pass the filter condition
 * (postgresFilter's sql); `tenant` and `sources` are the placeholders holding them.
 */
export const filteredChunksSql = (condition: string, tenant: string, sources: string) =>
  `SELECT c.id FROM documents d JOIN chunks c ON c.tenant_id = d.tenant_id AND c.document_id = d.id
   WHERE d.tenant_id = ${tenant} AND d.data_source_id = ANY(${sources}::text[]) AND ${condition}`;
