// A search filter after validation (parse.ts): a tree over a document's fields that PostgreSQL
// compiles into SQL (store/postgres/content/filter-sql.ts) and SQLite evaluates over in-memory
// columns (evaluate.ts), both applied inside their scans, so a filtered search ranks the
// filtered set itself (issue 28 item 1). Backend-neutral: imports nothing.

/** The document columns a filter can name besides metadata. */
export type FilterColumn = "data_source_id" | "document_id" | "file_type" | "created_at" | "updated_at";

export type FilterField = { kind: "column"; name: FilterColumn } | { kind: "metadata"; path: string[] };

/** A value a metadata field can be compared with (null is refused: `$exists` says absent). */
export type FilterScalar = string | number | boolean;

export type Comparison = "eq" | "ne" | "gt" | "gte" | "lt" | "lte";

export type SearchFilter =
  | { op: "and"; nodes: SearchFilter[] }
  | { op: "or"; nodes: SearchFilter[] }
  | { op: "not"; node: SearchFilter }
  /**
   * `ne` holds where the field is absent too (MongoDB's rule); the order comparisons hold only
   * between values of the same type (numbers with numbers, strings with strings).
   */
  | { op: "cmp"; field: FilterField; cmp: Comparison; value: FilterScalar }
  /** `negate` (`$nin`) holds where the field is absent too */
  | { op: "in"; field: FilterField; values: FilterScalar[]; negate: boolean }
  | { op: "exists"; field: FilterField; exists: boolean };

/** The fields of a document a filter reads: what a brute-force reference evaluates against. */
export interface FilterableDocument {
  data_source_id: string;
  document_id: string;
  /** metadata.file_type when the document has one (records of a CSV or JSON file), else its kind */
  file_type: string | null;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}
