// Reads a search filter as sent (MongoDB style, issue 28) into the tree both stores compile
// (types.ts), or lists what is wrong with it, each problem with the path to the bad part, so the
// API answers 422 naming it. Nothing here trusts the input: every value is checked for its type
// and size before it can reach a store (where it travels as a bound parameter, never as SQL).
import type { Comparison, FilterColumn, FilterField, FilterScalar, SearchFilter } from "./types.js";

export interface FilterIssue {
  /** the path inside the filter to the bad part, e.g. ["$and", 1, "metadata.year", "$gt"] */
  path: (string | number)[];
  msg: string;
  input: unknown;
}

/** A filter that could not be read; `issues` name each bad part. */
export class FilterInvalid extends Error {
  constructor(public readonly issues: FilterIssue[]) {
    super(issues.map((i) => `${i.path.join(".")}: ${i.msg}`).join("; "));
  }
}

/** conditions (field tests) in one filter: a bound on the SQL it becomes */
export const MAX_CONDITIONS = 100;
/** nesting of $and / $or / $not */
export const MAX_NESTING = 8;
/** values in one $in / $nin */
export const MAX_IN_VALUES = 1000;
const MAX_TEXT = 1000;
const MAX_KEY_SEGMENT = 200;

const COLUMNS: readonly FilterColumn[] = ["data_source_id", "document_id", "file_type", "created_at", "updated_at"];
const DATES: readonly FilterColumn[] = ["created_at", "updated_at"];
const COMPARISONS: Record<string, Comparison> = { $eq: "eq", $ne: "ne", $gt: "gt", $gte: "gte", $lt: "lt", $lte: "lte" };
const FIELD_NAMES = `${COLUMNS.join(", ")} or metadata.<key>`;
const OPERATORS = "$eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists";

type Path = (string | number)[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The field a filter or facet names, or what is wrong with the name. */
export function fieldNamed(key: string): FilterField | string {
  if ((COLUMNS as readonly string[]).includes(key)) return { kind: "column", name: key as FilterColumn };
  if (!key.startsWith("metadata.")) return `Unknown field ${JSON.stringify(key)}: use ${FIELD_NAMES}.`;
  const segments = key.slice("metadata.".length).split(".");
  // quotes and backslashes would need escaping in a JSON path; metadata keys rarely hold them
  const bad = segments.find((s) => s.length === 0 || s.length > MAX_KEY_SEGMENT || /["\\\u0000-\u001f]/.test(s));
  if (bad !== undefined) return `Bad metadata key ${JSON.stringify(key)}: each dot-separated part must be 1 to ${MAX_KEY_SEGMENT} characters without quotes, backslashes or control characters.`;
  return { kind: "metadata", path: segments };
}

class Reader {
  readonly issues: FilterIssue[] = [];
  private conditions = 0;

  fail(path: Path, msg: string, input: unknown): null {
    this.issues.push({ path, msg, input });
    return null;
  }

  /** an object of conditions, all of which must hold */
  node(v: unknown, path: Path, depth: number): SearchFilter | null {
    if (!isObject(v)) return this.fail(path, "A filter is a JSON object, e.g. {\"metadata.product\": \"cli\"}.", v);
    if (depth > MAX_NESTING) return this.fail(path, `Filters nest at most ${MAX_NESTING} levels of $and, $or and $not.`, v);
    const nodes: SearchFilter[] = [];
    for (const [key, value] of Object.entries(v)) {
      const n = key.startsWith("$") ? this.combinator(key, value, [...path, key], depth) : this.fieldCondition(key, value, [...path, key]);
      if (n) nodes.push(n);
    }
    return nodes.length === 1 ? nodes[0]! : { op: "and", nodes };
  }

  private combinator(key: string, value: unknown, path: Path, depth: number): SearchFilter | null {
    if (key === "$not") {
      const node = this.node(value, path, depth + 1);
      return node && { op: "not", node };
    }
    if (key !== "$and" && key !== "$or") return this.fail(path, `Unknown combinator ${key}: use $and, $or or $not at this level, or a field name (${FIELD_NAMES}).`, key);
    if (!Array.isArray(value) || value.length === 0) return this.fail(path, `${key} takes a non-empty array of filters.`, value);
    const nodes = value.map((x, i) => this.node(x, [...path, i], depth + 1));
    if (nodes.some((n) => n === null)) return null;
    return { op: key === "$and" ? "and" : "or", nodes: nodes as SearchFilter[] };
  }

  private field(key: string, path: Path): FilterField | null {
    const f = fieldNamed(key);
    return typeof f === "string" ? this.fail(path, f, key) : f;
  }

  private fieldCondition(key: string, value: unknown, path: Path): SearchFilter | null {
    const field = this.field(key, path);
    if (!field) return null;
    if (!isObject(value)) return this.comparison(field, "eq", value, path);
    const ops = Object.entries(value);
    if (ops.length === 0) return this.fail(path, `Give an operator (${OPERATORS}) or a value to match.`, value);
    const nodes: SearchFilter[] = [];
    for (const [op, arg] of ops) {
      const n = this.operator(field, op, arg, [...path, op]);
      if (n) nodes.push(n);
    }
    return nodes.length === 1 ? nodes[0]! : { op: "and", nodes };
  }

  private operator(field: FilterField, op: string, arg: unknown, path: Path): SearchFilter | null {
    const cmp = COMPARISONS[op];
    if (cmp) return this.comparison(field, cmp, arg, path);
    if (op === "$in" || op === "$nin") return this.membership(field, op === "$nin", arg, path);
    if (op === "$exists") {
      if (field.kind === "column") return this.fail(path, "$exists applies to metadata fields; document fields always exist.", arg);
      if (typeof arg !== "boolean") return this.fail(path, "$exists takes true or false.", arg);
      return this.counted(path, { op: "exists", field, exists: arg });
    }
    if (!op.startsWith("$")) return this.fail(path, `Nested objects are not compared: name the key with dots (metadata.a.b) or use an operator (${OPERATORS}).`, op);
    return this.fail(path, `Unknown operator ${op}: use ${OPERATORS}.`, op);
  }

  private comparison(field: FilterField, cmp: Comparison, arg: unknown, path: Path): SearchFilter | null {
    const value = this.scalar(field, arg, path, cmp === "eq" || cmp === "ne");
    return value === null ? null : this.counted(path, { op: "cmp", field, cmp, value });
  }

  private membership(field: FilterField, negate: boolean, arg: unknown, path: Path): SearchFilter | null {
    if (!Array.isArray(arg) || arg.length > MAX_IN_VALUES) return this.fail(path, `${negate ? "$nin" : "$in"} takes an array of at most ${MAX_IN_VALUES} values.`, arg);
    const values = arg.map((x, i) => this.scalar(field, x, [...path, i], true));
    if (values.some((x) => x === null)) return null;
    return this.counted(path, { op: "in", field, values: values as FilterScalar[], negate });
  }

  /** a value the field can be compared with; `equality`: booleans allowed (not for ranges) */
  private scalar(field: FilterField, v: unknown, path: Path, equality: boolean): FilterScalar | null {
    if (v === null) return this.fail(path, "null is not a value to compare with: use {\"$exists\": false} for a missing field.", v);
    if (Array.isArray(v) || isObject(v)) return this.fail(path, Array.isArray(v) ? "Use $in to match any of several values." : `Expected a value or an operator (${OPERATORS}).`, v);
    if (typeof v === "string" && v.length > MAX_TEXT) return this.fail(path, `Values are at most ${MAX_TEXT} characters.`, v);
    if (field.kind === "column") return this.columnValue(field.name, v, path);
    if (typeof v === "number") return Number.isFinite(v) ? v : this.fail(path, "Numbers must be finite.", v);
    if (typeof v === "boolean" && !equality) return this.fail(path, "Ranges ($gt, $gte, $lt, $lte) take numbers or strings.", v);
    if (typeof v === "string" || typeof v === "boolean") return v;
    return this.fail(path, "Expected a string, number or boolean.", v);
  }

  private columnValue(name: FilterColumn, v: unknown, path: Path): string | null {
    if (typeof v !== "string") return this.fail(path, `${name} is compared with a string${DATES.includes(name) ? " (an ISO 8601 date or date-time)" : ""}.`, v);
    if (!DATES.includes(name)) return v;
    // stored as ISO 8601 UTC strings (toISOString), so a normalised bound compares as text
    const t = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? Date.parse(v) : NaN;
    if (Number.isNaN(t)) return this.fail(path, `${name} needs an ISO 8601 date or date-time, e.g. "2026-01-31" or "2026-01-31T12:00:00Z".`, v);
    return new Date(t).toISOString();
  }

  private counted(path: Path, n: SearchFilter): SearchFilter | null {
    if (++this.conditions > MAX_CONDITIONS) return this.fail(path, `A filter holds at most ${MAX_CONDITIONS} conditions.`, null);
    return n;
  }
}

/** The filter as the stores take it; throws FilterInvalid naming every bad part. */
export function parseFilter(v: unknown): SearchFilter {
  const r = new Reader();
  const node = r.node(v, [], 0);
  if (r.issues.length > 0 || !node) throw new FilterInvalid(r.issues.length > 0 ? r.issues : [{ path: [], msg: "The filter could not be read.", input: v }]);
  return node;
}
