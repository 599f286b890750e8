// The SQLite dialect of search filters (store/filter-sql.ts): metadata is JSON text read with
// json_type / json_extract, so a test first checks the stored value's type (SQLite would
// otherwise order any text above any number). Strings compare byte-wise (BINARY).
import type { FilterField, FilterScalar, SearchFilter } from "../../../search/filter/types.js";
import { filterSql, SQL_COMPARISON, type FilterDialect } from "../../filter-sql.js";

// file_type: the type a record inherits from its CSV or JSON file, else the document's own kind
const FILE_TYPE = "COALESCE(CASE WHEN json_type(d.metadata, '$.file_type') = 'text' THEN json_extract(d.metadata, '$.file_type') END, d.kind)";
export const COLUMN = { data_source_id: "d.data_source_id", document_id: "d.id", file_type: FILE_TYPE, created_at: "d.created_at", updated_at: "d.updated_at" } as const;

/** `$."a"."b"`: parse.ts refuses quotes and backslashes in keys, so quoting is enough */
export const jsonPath = (path: string[]) => "$" + path.map((s) => `."${s}"`).join("");

// the JSON type json_type reports for a value of this kind (numbers: integer or real)
const typeTest = (t: string, v: FilterScalar) =>
  typeof v === "number" ? `${t} IN ('integer', 'real')` : typeof v === "boolean" ? `${t} = '${v ? "true" : "false"}'` : `${t} = 'text'`;

export function sqliteFilter(f: SearchFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), "?");
  const d: FilterDialect = {
    param,
    TRUE: "1",
    FALSE: "0",
    compare(field, cmp, value) {
      if (field.kind === "column") return `COALESCE(${COLUMN[field.name]} ${SQL_COMPARISON[cmp]} ${param(value)}, 0)`;
      const p = jsonPath(field.path);
      const t = `json_type(d.metadata, ${param(p)})`;
      if (typeof value === "boolean") return `COALESCE(${typeTest(t, value)}, 0)`;
      return `COALESCE(${typeTest(t, value)} AND json_extract(d.metadata, ${param(p)}) ${SQL_COMPARISON[cmp]} ${param(value)}, 0)`;
    },
    oneOf(field, values) {
      if (field.kind === "column") return `COALESCE(${COLUMN[field.name]} IN (SELECT value FROM json_each(${param(JSON.stringify(values))})), 0)`;
      return `(${values.map((v) => d.compare(field, "eq", v)).join(" OR ")})`;
    },
    exists(field: FilterField) {
      if (field.kind === "column") return "1";
      return `(json_type(d.metadata, ${param(jsonPath(field.path))}) IS NOT NULL)`;
    },
  };
  return { sql: filterSql(f, d), params };
}
