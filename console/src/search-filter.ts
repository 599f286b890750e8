// The playground's filter builder as data: rows a person edits (field, operator, value as typed)
// and the `filter` JSON of POST /search that they mean (issue 28: bare value = equals, $in, $gt…,
// $and/$or/$not). Facet checkboxes are kept apart from the rows and always narrow (AND), so
// choosing "any row" for the builder never turns a checked facet into a wider search.
// No React here: the rules are unit-tested (test/console/search-filter.test.ts).

export const FIELDS = ["data_source_id", "document_id", "file_type", "created_at", "updated_at", "metadata"] as const;
export type FieldKind = (typeof FIELDS)[number];

export const OPERATORS = [
  ["$eq", "is"],
  ["$ne", "is not"],
  ["$in", "is one of"],
  ["$nin", "is none of"],
  ["$gt", "greater than"],
  ["$gte", "at least"],
  ["$lt", "less than"],
  ["$lte", "at most"],
  ["$exists", "exists"],
] as const;
export type Operator = (typeof OPERATORS)[number][0];

export interface FilterRow {
  field: FieldKind;
  /** the key after `metadata.` (dots for nested keys) */
  key: string;
  op: Operator;
  /** as typed; lists ($in, $nin) separated by commas; $exists: "true" or "false" */
  value: string;
}

/** all rows must match, any row, or none of them */
export type Join = "and" | "or" | "not";

export const newRow = (): FilterRow => ({ field: "metadata", key: "", op: "$eq", value: "" });

export const fieldName = (r: Pick<FilterRow, "field" | "key">) => (r.field === "metadata" ? `metadata.${r.key.trim()}` : r.field);

/** operators the API takes for a field ($exists is for metadata only) */
export const operatorsFor = (field: FieldKind) => OPERATORS.filter(([op]) => op !== "$exists" || field === "metadata");

const list = (value: string) =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/**
 * Metadata values keep the type a record gave them (12.5, true), and facets count "12.5" and 12.5
 * as one value: so an equality on text that reads as a number or true/false matches both forms.
 * Quotes ("12") ask for the text only. Other fields hold text (ids, file types, ISO dates).
 */
function typed(field: FieldKind, text: string): unknown[] {
  const quoted = /^"(.*)"$/.exec(text);
  if (quoted) return [quoted[1]];
  if (field !== "metadata") return [text];
  if (text === "true" || text === "false") return [text, text === "true"];
  const n = Number(text);
  if (text !== "" && Number.isFinite(n)) return [text, n];
  return [text];
}

/** a range compares like with like: a number for number-like metadata, text otherwise */
function rangeValue(field: FieldKind, text: string): unknown {
  const forms = typed(field, text);
  return forms[forms.length - 1];
}

/** What is wrong with a row, as a sentence; null when it can be sent. */
export function rowProblem(r: FilterRow): string | null {
  if (r.field === "metadata" && !r.key.trim()) return "Name the metadata key (for example product).";
  if (r.op === "$exists") return null;
  if (r.op === "$in" || r.op === "$nin") return list(r.value).length ? null : "List at least one value, separated by commas.";
  return r.value.trim() ? null : "Give a value.";
}

/** One row as a filter clause. */
export function rowClause(r: FilterRow): Record<string, unknown> {
  const name = fieldName(r);
  const value = r.value.trim();
  switch (r.op) {
    case "$exists":
      return { [name]: { $exists: value !== "false" } };
    case "$eq": {
      const forms = typed(r.field, value);
      return { [name]: forms.length === 1 ? forms[0] : { $in: forms } };
    }
    case "$ne": {
      const forms = typed(r.field, value);
      return { [name]: forms.length === 1 ? { $ne: forms[0] } : { $nin: forms } };
    }
    case "$in":
    case "$nin":
      return { [name]: { [r.op]: list(value).flatMap((v) => typed(r.field, v)) } };
    default:
      return { [name]: { [r.op]: rangeValue(r.field, value) } };
  }
}

/** The rows joined as asked; undefined when there is none. */
export function rowsFilter(rows: FilterRow[], join: Join): Record<string, unknown> | undefined {
  const clauses = rows.map(rowClause);
  if (clauses.length === 0) return undefined;
  if (join === "not") return { $not: clauses.length === 1 ? clauses[0] : { $or: clauses } };
  if (clauses.length === 1) return clauses[0];
  return { [join === "or" ? "$or" : "$and"]: clauses };
}

/** field -> the facet values checked */
export type FacetChecks = Record<string, string[]>;

/** A checked facet value: a field with several checked values matches any of them. */
export function facetClause(field: string, values: string[]): Record<string, unknown> {
  const kind: FieldKind = field.startsWith("metadata.") ? "metadata" : "file_type";
  const forms = values.flatMap((v) => typed(kind, v));
  return { [field]: forms.length === 1 ? forms[0] : { $in: forms } };
}

export function toggleFacet(checks: FacetChecks, field: string, value: string, on: boolean): FacetChecks {
  const now = (checks[field] ?? []).filter((v) => v !== value);
  if (on) now.push(value);
  const next = { ...checks };
  if (now.length) next[field] = now;
  else delete next[field];
  return next;
}

/** The request's `filter`: the builder's rows and every checked facet, all of which must hold. */
export function requestFilter(rows: FilterRow[], join: Join, checks: FacetChecks): Record<string, unknown> | undefined {
  const parts = [rowsFilter(rows, join), ...Object.entries(checks).map(([f, vs]) => facetClause(f, vs))].filter((p): p is Record<string, unknown> => !!p);
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { $and: parts };
}

/** "file_type, metadata.product" -> the `facets` list (blank entries dropped, each once) */
export const facetList = (text: string) => [...new Set(list(text))];

/** Facet values, most frequent first (a JSON object's order carries no meaning), then by value. */
export const byCount = (counts: Record<string, number>) => Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/** metadata keys of the hits (nested objects as dotted keys), for facet suggestions */
export function metadataKeys(hits: { metadata?: Record<string, unknown> }[]): string[] {
  const keys = new Set<string>();
  const walk = (prefix: string, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x);
    else if (prefix) keys.add(prefix);
  };
  for (const h of hits) walk("", h.metadata ?? {});
  return [...keys].sort();
}
