// Records: a CSV (one document per data row) or a JSON array / JSON Lines file (one document per
// element), for data sources configured with `{"records": true}` (product catalogues, FAQs kept in
// a sheet). Each record becomes a small Markdown document: its title (a title-like column, else the
// first non-empty value) as the heading, then one "field: value" line per non-empty field. The
// fields themselves become the document's metadata, so search hits carry them.
import { parse } from "csv-parse/sync";
import { cleanInline } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { detectDelimiter, looksLikeHeader } from "./csv.js";
import { ParseError } from "./errors.js";

/** Most records one uploaded file may turn into (each is a document of the plan's quota). */
export const MAX_RECORDS_PER_FILE = 10_000;
const MAX_TITLE = 200;
/** Columns (case-insensitive, spaces and dashes as underscores) that name a record, best first. */
const TITLE_FIELDS = ["title", "name", "product_name", "product", "label", "subject", "question", "sku", "id"];

export type FieldValue = string | number | boolean | null | FieldValue[] | { [k: string]: FieldValue };

export interface RecordDocument {
  /** 1-based position of the record in the file (data rows only) */
  index: number;
  title: string;
  /** Markdown body: the title as a heading, then "field: value" lines */
  markdown: string;
  fields: Record<string, FieldValue>;
}

const display = (v: FieldValue): string => (v === null ? "" : typeof v === "object" ? JSON.stringify(v) : cleanInline(String(v)));

function titleOf(fields: Record<string, FieldValue>, fallback: string): string {
  const byKey = new Map(Object.keys(fields).map((k) => [k.toLowerCase().replace(/[\s-]+/g, "_"), k]));
  for (const t of TITLE_FIELDS) {
    const key = byKey.get(t);
    const v = key !== undefined ? display(fields[key]!) : "";
    if (v) return v.slice(0, MAX_TITLE);
  }
  for (const v of Object.values(fields)) {
    const s = display(v);
    if (s) return s.slice(0, MAX_TITLE);
  }
  return fallback;
}

function toRecord(fields: Record<string, FieldValue>, index: number, fileTitle: string): RecordDocument | null {
  const lines = Object.entries(fields)
    .map(([k, v]) => [cleanInline(k), display(v)] as const)
    .filter(([, v]) => v !== "")
    .map(([k, v]) => `${k}: ${v}`);
  if (lines.length === 0) return null;
  const title = titleOf(fields, `${fileTitle} ${index}`);
  // blank lines between fields: each is its own paragraph, never run together into one
  return { index, title, markdown: `# ${title.replace(/\n/g, " ")}\n\n${lines.join("\n\n")}\n`, fields };
}

function checkCount(n: number, filename: string): void {
  if (n > MAX_RECORDS_PER_FILE) {
    throw new ParseError(
      `"${filename}" holds more than ${MAX_RECORDS_PER_FILE} records; a records source takes at most ${MAX_RECORDS_PER_FILE} per file: split the file and upload the parts.`,
    );
  }
}

function csvRecords(text: string, filename: string, fileTitle: string): RecordDocument[] {
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: detectDelimiter(text, filename),
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      to: MAX_RECORDS_PER_FILE + 2,
    }) as string[][];
  } catch (err) {
    throw new ParseError(`"${filename}" could not be read as CSV: check for an unclosed quote or a broken row, then upload again.`, { cause: err });
  }
  const hasHeader = rows.length > 1 && looksLikeHeader(rows[0]!);
  const width = Math.max(0, ...rows.map((r) => r.length));
  const header = Array.from({ length: width }, (_, i) => (hasHeader && rows[0]![i]?.trim() ? cleanInline(rows[0]![i]!) : `column ${i + 1}`));
  const data = hasHeader ? rows.slice(1) : rows;
  checkCount(data.length, filename);
  const out: RecordDocument[] = [];
  data.forEach((row, i) => {
    const fields: Record<string, FieldValue> = {};
    header.forEach((h, c) => {
      const v = cleanInline(row[c] ?? "");
      if (v !== "" && !(h in fields)) fields[h] = v;
    });
    const r = toRecord(fields, i + 1, fileTitle);
    if (r) out.push(r);
  });
  return out;
}

function jsonRecords(text: string, filename: string, fileTitle: string): RecordDocument[] {
  let items: unknown[];
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith("[")) {
      items = JSON.parse(trimmed) as unknown[];
    } else {
      // JSON Lines: one value per line
      items = trimmed.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as unknown);
    }
  } catch (err) {
    throw new ParseError(`"${filename}" is not valid JSON (${(err as Error).message}); a records source needs a JSON array of objects or JSON Lines.`, {
      cause: err,
    });
  }
  if (!Array.isArray(items)) throw new ParseError(`"${filename}" is not a JSON array; a records source needs an array of objects or JSON Lines.`);
  checkCount(items.length, filename);
  const out: RecordDocument[] = [];
  items.forEach((item, i) => {
    const fields: Record<string, FieldValue> =
      item !== null && typeof item === "object" && !Array.isArray(item) ? (item as Record<string, FieldValue>) : { value: item as FieldValue };
    const r = toRecord(fields, i + 1, fileTitle);
    if (r) out.push(r);
  });
  return out;
}

/** The records of an uploaded CSV or JSON file; a ParseError says what to change. */
export function splitRecords(bytes: Buffer, filename: string, kind: "csv" | "json", fileTitle: string): RecordDocument[] {
  const raw = decodeUtf8Text(bytes);
  if (raw === null) throw new ParseError(`"${filename}" is not UTF-8 text. Export it as UTF-8 and upload again.`);
  const text = normalizeText(raw);
  const records = kind === "csv" ? csvRecords(text, filename, fileTitle) : jsonRecords(text, filename, fileTitle);
  if (records.length === 0) throw new ParseError(`"${filename}" holds no records with a value.`);
  return records;
}
