// Facets (issue 28 item 2): `facets: ["metadata.product", "file_type"]` on /search counts the
// matched documents per value of each field. Backend-neutral: the fields as the stores take them,
// and how their rows become the answer's `{field: {value: count}}`.
import { FilterInvalid, fieldNamed, type FilterIssue } from "./parse.js";
import type { FilterField } from "./types.js";

/** fields one request may count */
export const MAX_FACETS = 10;
/** values kept per field, the most frequent first (a cap on what a field with unique values returns) */
export const FACET_VALUES = 100;

/** One value of a field and how many matched documents hold it (strings, numbers and booleans only). */
export interface FacetValue {
  value: string | number | boolean;
  count: number;
}

export interface FacetField {
  name: string;
  field: FilterField;
}

/** The fields asked for, in order (duplicates once); throws FilterInvalid naming each bad entry by index. */
export function parseFacets(names: readonly string[]): FacetField[] {
  const issues: FilterIssue[] = [];
  if (names.length > MAX_FACETS) issues.push({ path: [], msg: `Ask for at most ${MAX_FACETS} facets.`, input: names.length });
  const out: FacetField[] = [];
  names.forEach((name, i) => {
    const f = fieldNamed(name);
    if (typeof f === "string") issues.push({ path: [i], msg: f, input: name });
    else if (!out.some((x) => x.name === name)) out.push({ name, field: f });
  });
  if (issues.length > 0) throw new FilterInvalid(issues);
  return out;
}

/**
 * The answer's shape: per field, values as JSON object keys (numbers and booleans as text; a
 * string and a number of the same text add up), the FACET_VALUES most frequent (ties by value).
 * Inserted most frequent first, but a JSON object's order is no contract: JavaScript puts
 * integer-like keys ("5", "10") first, in ascending order, whatever their counts.
 */
export function facetAnswer(fields: readonly FacetField[], rows: readonly FacetValue[][]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  fields.forEach((f, i) => {
    const counts = new Map<string, number>();
    for (const r of rows[i] ?? []) counts.set(String(r.value), (counts.get(String(r.value)) ?? 0) + r.count);
    const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out[f.name] = Object.fromEntries(sorted.slice(0, FACET_VALUES));
  });
  return out;
}
