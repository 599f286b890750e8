// A search filter evaluated over in-memory document columns (columns.ts): one pass per condition
// over the documents, a byte per document, instead of a JSON read per document per condition.
// The rules are the stores' SQL rules (store/filter-sql.ts and its dialects): a comparison holds
// only between values of the same type, strings byte-wise; `$ne`, `$nin` and `$not` are the
// negation of a test that is false where the field is absent; a JSON null, array or object is
// present but equals nothing; document fields always exist.
import type { Comparison, FilterField, FilterScalar, SearchFilter } from "./types.js";
import { FALSE, NUMBER, OTHER, STRING, TRUE, ABSENT, compareText, type ValueColumn } from "./columns.js";

export interface FilterColumns {
  /** document ordinals run 0 .. size - 1 */
  readonly size: number;
  /** the field's column, built when first asked for */
  column(field: FilterField): ValueColumn;
}

type Ordered = Exclude<Comparison, "ne">;

const holds = (cmp: Ordered, c: number): boolean =>
  cmp === "eq" ? c === 0 : cmp === "gt" ? c > 0 : cmp === "gte" ? c >= 0 : cmp === "lt" ? c < 0 : c <= 0;

/** per dictionary code of the column: whether that string passes */
function stringTest(col: ValueColumn, test: (s: string) => boolean): Uint8Array {
  const pass = new Uint8Array(col.dict.length);
  col.dict.forEach((s, i) => (pass[i] = test(s) ? 1 : 0));
  return pass;
}

/** the documents whose field satisfies `cmp value` (false where absent or of another type) */
function compare(cols: FilterColumns, field: FilterField, cmp: Ordered, value: FilterScalar): Uint8Array {
  const out = new Uint8Array(cols.size);
  const col = cols.column(field);
  const n = Math.min(cols.size, col.kinds.length);
  const kinds = col.kinds;
  if (typeof value === "boolean") {
    const want = value ? TRUE : FALSE;
    for (let d = 0; d < n; d++) out[d] = kinds[d] === want ? 1 : 0;
  } else if (typeof value === "number") {
    const nums = col.nums;
    for (let d = 0; d < n; d++) out[d] = kinds[d] === NUMBER && holds(cmp, nums[d]! - value) ? 1 : 0;
  } else if (cmp === "eq") {
    const code = col.lookup(value);
    const codes = col.codes;
    if (code >= 0) for (let d = 0; d < n; d++) out[d] = kinds[d] === STRING && codes[d] === code ? 1 : 0;
  } else {
    const pass = stringTest(col, (s) => holds(cmp, compareText(s, value)));
    const codes = col.codes;
    for (let d = 0; d < n; d++) out[d] = kinds[d] === STRING && pass[codes[d]!] ? 1 : 0;
  }
  return out;
}

/** the documents whose field equals one of the values */
function oneOf(cols: FilterColumns, field: FilterField, values: FilterScalar[]): Uint8Array {
  const out = new Uint8Array(cols.size);
  const col = cols.column(field);
  const n = Math.min(cols.size, col.kinds.length);
  const strings = new Set(values.filter((v): v is string => typeof v === "string"));
  const numbers = new Set(values.filter((v): v is number => typeof v === "number"));
  const wantTrue = values.includes(true);
  const wantFalse = values.includes(false);
  const pass = stringTest(col, (s) => strings.has(s));
  const { kinds, codes, nums } = col;
  for (let d = 0; d < n; d++) {
    const k = kinds[d];
    out[d] = (k === STRING && pass[codes[d]!]) || (k === NUMBER && numbers.has(nums[d]!)) || (k === TRUE && wantTrue) || (k === FALSE && wantFalse) ? 1 : 0;
  }
  return out;
}

function exists(cols: FilterColumns, field: FilterField): Uint8Array {
  const out = new Uint8Array(cols.size);
  if (field.kind === "column") return out.fill(1);
  const kinds = cols.column(field).kinds;
  const n = Math.min(cols.size, kinds.length);
  for (let d = 0; d < n; d++) out[d] = kinds[d] === ABSENT ? 0 : 1;
  return out;
}

function negate(a: Uint8Array): Uint8Array {
  for (let d = 0; d < a.length; d++) a[d] = a[d] ? 0 : 1;
  return a;
}

function combine(parts: Uint8Array[], size: number, all: boolean): Uint8Array {
  if (parts.length === 0) return new Uint8Array(size).fill(all ? 1 : 0);
  const out = parts[0]!;
  for (const p of parts.slice(1)) for (let d = 0; d < size; d++) out[d] = all ? out[d]! & p[d]! : out[d]! | p[d]!;
  return out;
}

/** One byte per document ordinal: 1 where the document passes the filter. */
export function evaluateFilter(f: SearchFilter, cols: FilterColumns): Uint8Array {
  switch (f.op) {
    case "and":
    case "or":
      return combine(
        f.nodes.map((n) => evaluateFilter(n, cols)),
        cols.size,
        f.op === "and",
      );
    case "not":
      return negate(evaluateFilter(f.node, cols));
    case "cmp":
      return f.cmp === "ne" ? negate(compare(cols, f.field, "eq", f.value)) : compare(cols, f.field, f.cmp, f.value);
    case "in": {
      const test = f.values.length === 0 ? new Uint8Array(cols.size) : oneOf(cols, f.field, f.values);
      return f.negate ? negate(test) : test;
    }
    case "exists": {
      const test = exists(cols, f.field);
      return f.exists ? test : negate(test);
    }
  }
}

/** a column's value at an ordinal as the facet answer holds it (strings, numbers, booleans), else undefined */
export function facetValueAt(col: ValueColumn, d: number): string | number | boolean | undefined {
  switch (col.kind(d)) {
    case STRING:
      return col.dict[col.codes[d]!];
    case NUMBER:
      return col.nums[d];
    case TRUE:
      return true;
    case FALSE:
      return false;
    case OTHER:
    default:
      return undefined;
  }
}
