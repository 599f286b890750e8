// Facet counts from an in-memory column (columns.ts): the matched documents counted per value,
// the `cap` most frequent kept in the order the SQL stores use (count, then the value as text
// byte-wise, then its JSON type), so the cap cuts where theirs does.
import type { FacetValue } from "./facets.js";
import { FALSE, NUMBER, STRING, TRUE, compareText, type ValueColumn } from "./columns.js";

/** a number as SQLite's CAST(x AS TEXT) writes it: integers as they are, reals to 15 significant digits */
function numberText(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 2 ** 63) return BigInt(x).toString();
  return String(Number(x.toPrecision(15)));
}

/** json_type's name of a value, what breaks ties between values of the same text */
const typeName = (v: string | number | boolean): string =>
  typeof v === "string" ? "text" : typeof v === "boolean" ? String(v) : Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? "integer" : "real";

const textOf = (v: string | number | boolean): string => (typeof v === "string" ? v : typeof v === "boolean" ? (v ? "1" : "0") : numberText(v));

export function tallyFacet(col: ValueColumn, documents: Iterable<number>, cap: number): FacetValue[] {
  const strings = new Map<number, number>();
  const numbers = new Map<number, number>();
  let trues = 0;
  let falses = 0;
  for (const d of documents) {
    const k = col.kind(d);
    if (k === STRING) strings.set(col.codes[d]!, (strings.get(col.codes[d]!) ?? 0) + 1);
    else if (k === NUMBER) numbers.set(col.nums[d]!, (numbers.get(col.nums[d]!) ?? 0) + 1);
    else if (k === TRUE) trues++;
    else if (k === FALSE) falses++;
  }
  const rows: FacetValue[] = [];
  for (const [code, count] of strings) rows.push({ value: col.dict[code]!, count });
  for (const [value, count] of numbers) rows.push({ value, count });
  if (trues > 0) rows.push({ value: true, count: trues });
  if (falses > 0) rows.push({ value: false, count: falses });
  const keyed = rows.map((r) => ({ r, text: textOf(r.value), type: typeName(r.value) }));
  keyed.sort((a, b) => b.r.count - a.r.count || compareText(a.text, b.text) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return keyed.slice(0, cap).map((x) => x.r);
}
