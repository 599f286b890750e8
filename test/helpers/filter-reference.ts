// The reference the filter tests hold both stores to: a filter's JSON evaluated on one document
// from the rules as documented (docs/decisions.md, "Filters"), written apart from the stores'
// SQL so a shared mistake cannot hide. Dates in the filter are normalised as the API does.

export interface FilterDoc {
  id: string;
  data_source_id: string;
  /** the document's own kind (file_type falls back to it when metadata has none) */
  kind?: string | null;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

export function fieldValue(d: FilterDoc, name: string): unknown {
  if (name === "data_source_id") return d.data_source_id;
  if (name === "document_id") return d.id;
  if (name === "created_at") return d.created_at;
  if (name === "updated_at") return d.updated_at;
  if (name === "file_type") return typeof d.metadata.file_type === "string" ? d.metadata.file_type : (d.kind ?? undefined);
  let v: unknown = d.metadata;
  for (const seg of name.slice("metadata.".length).split(".")) {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

const dateField = (name: string) => name === "created_at" || name === "updated_at";
const norm = (name: string, x: unknown) => (dateField(name) && typeof x === "string" ? new Date(x).toISOString() : x);
const scalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const same = (v: unknown, x: unknown) => scalar(v) && typeof v === typeof x && v === x;
const order = (v: unknown, x: unknown, test: (a: any, b: any) => boolean) =>
  (typeof v === "number" && typeof x === "number") || (typeof v === "string" && typeof x === "string") ? test(v, x) : false;

function holdsOp(v: unknown, op: string, arg: unknown, name: string): boolean {
  const x = norm(name, arg);
  switch (op) {
    case "$eq":
      return same(v, x);
    case "$ne":
      return !same(v, x);
    case "$gt":
      return order(v, x, (a, b) => a > b);
    case "$gte":
      return order(v, x, (a, b) => a >= b);
    case "$lt":
      return order(v, x, (a, b) => a < b);
    case "$lte":
      return order(v, x, (a, b) => a <= b);
    case "$in":
      return (arg as unknown[]).some((y) => same(v, norm(name, y)));
    case "$nin":
      return !(arg as unknown[]).some((y) => same(v, norm(name, y)));
    case "$exists":
      return (v !== undefined) === arg;
  }
  throw new Error(`reference: unknown ${op}`);
}

export function holds(f: Record<string, unknown>, d: FilterDoc): boolean {
  return Object.entries(f).every(([k, v]) => {
    if (k === "$and") return (v as Record<string, unknown>[]).every((g) => holds(g, d));
    if (k === "$or") return (v as Record<string, unknown>[]).some((g) => holds(g, d));
    if (k === "$not") return !holds(v as Record<string, unknown>, d);
    const value = fieldValue(d, k);
    if (typeof v === "object" && v !== null) return Object.entries(v).every(([op, arg]) => holdsOp(value, op, arg, k));
    return same(value, norm(k, v));
  });
}
