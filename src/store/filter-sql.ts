// A search filter (search/filter/types.ts) as a SQL condition over `documents d`: the tree walk,
// with a dialect writing the field tests (postgres/content/filter-sql.ts; SQLite evaluates
// filters in memory by the same rules, search/filter/evaluate.ts). Every test yields true or false, never NULL, so $not and the
// MongoDB rule that $ne and $nin hold for an absent field come out right.
import type { FilterField, FilterScalar, SearchFilter, Comparison } from "../search/filter/types.js";

export interface FilterDialect {
  /** a placeholder bound to this value */
  param(v: unknown): string;
  /** the field equals / orders against the value, false where absent or of another type */
  compare(field: FilterField, cmp: Exclude<Comparison, "ne">, value: FilterScalar): string;
  /** the field equals one of the values, false where absent */
  oneOf(field: FilterField, values: FilterScalar[]): string;
  /** the metadata field is present (a JSON null counts as present) */
  exists(field: FilterField): string;
  readonly TRUE: string;
  readonly FALSE: string;
}

export function filterSql(f: SearchFilter, d: FilterDialect): string {
  switch (f.op) {
    case "and":
      return f.nodes.length === 0 ? d.TRUE : `(${f.nodes.map((n) => filterSql(n, d)).join(" AND ")})`;
    case "or":
      return f.nodes.length === 0 ? d.FALSE : `(${f.nodes.map((n) => filterSql(n, d)).join(" OR ")})`;
    case "not":
      return `(NOT ${filterSql(f.node, d)})`;
    case "cmp":
      return f.cmp === "ne" ? `(NOT ${d.compare(f.field, "eq", f.value)})` : d.compare(f.field, f.cmp, f.value);
    case "in": {
      const test = f.values.length === 0 ? d.FALSE : d.oneOf(f.field, f.values);
      return f.negate ? `(NOT ${test})` : test;
    }
    case "exists":
      return f.exists ? d.exists(f.field) : `(NOT ${d.exists(f.field)})`;
  }
}

export const SQL_COMPARISON: Record<Exclude<Comparison, "ne">, string> = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" };
