// CSV/TSV -> one block per row, rendered "header: value; header: value". Every row carries its
// column names, so any chunk of a big sheet is self-explanatory to search and to an LLM, and the
// chunker can pack rows into chunks of the profile's size (a row is never split unless huge).
import { parse } from "csv-parse/sync";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";
import { LIMITS, checkCount } from "./limits.js";
import { heapGuard, ROWS_PER_CHECK } from "./memory-guard.js";

const CANDIDATE_DELIMITERS = [",", ";", "\t", "|"] as const;

/** The delimiter that splits the first lines most consistently (quotes respected). */
export function detectDelimiter(text: string, filename: string): string {
  if (filename.toLowerCase().endsWith(".tsv")) return "\t";
  const lines = text.split("\n", 20).filter((l) => l.trim() !== "").slice(0, 10);
  let best: string = ",";
  let bestScore = 0;
  for (const d of CANDIDATE_DELIMITERS) {
    const counts = lines.map((l) => countOutsideQuotes(l, d));
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const consistent = counts.filter((c) => c === first).length / counts.length;
    const score = first * consistent;
    if (score > bestScore) [best, bestScore] = [d, score];
  }
  return best;
}

function countOutsideQuotes(line: string, d: string): number {
  let n = 0;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === d && !quoted) n++;
  }
  return n;
}

export function looksLikeHeader(row: string[]): boolean {
  const cells = row.map((c) => c.trim());
  return cells.every((c) => c !== "") && cells.filter((c) => /^[-+]?[\d.,%$€£ ]+$/.test(c)).length === 0;
}

export function csvRowsToBlocks(records: string[][], checkHeap: () => void = () => undefined): { blocks: ParsedBlock[]; columns: string[]; rows: number } {
  const width = Math.max(0, ...records.map((r) => r.length));
  const hasHeader = records.length > 1 && looksLikeHeader(records[0]);
  const header = Array.from({ length: width }, (_, i) =>
    hasHeader && records[0][i]?.trim() ? cleanInline(records[0][i]) : `column ${i + 1}`,
  );
  const data = hasHeader ? records.slice(1) : records;
  const blocks: ParsedBlock[] = [];
  for (const [n, row] of data.entries()) {
    if (n % ROWS_PER_CHECK === 0) checkHeap();
    const pairs: string[] = [];
    row.forEach((value, i) => {
      const v = cleanInline(value);
      if (v) pairs.push(`${header[i]}: ${v}`);
    });
    if (pairs.length > 0) blocks.push({ type: "table", text: pairs.join("; ") });
  }
  if (blocks.length === 0 && hasHeader) blocks.push({ type: "paragraph", text: `Columns: ${header.join(", ")}` });
  return { blocks, columns: header, rows: data.length };
}

export function parseCsv(bytes: Buffer, filename: string): ParsedDocument {
  const raw = decodeUtf8Text(bytes);
  if (raw === null) throw new ParseError("The CSV file is not UTF-8 text. Export it as CSV UTF-8 and upload again.");
  const text = normalizeText(raw);
  let records: string[][];
  const checkHeap = heapGuard();
  let read = 0;
  try {
    records = parse(text, {
      delimiter: detectDelimiter(text, filename),
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // stop reading at the limit instead of building millions of rows first
      to: LIMITS.csvRows + 1,
      on_record: (record: string[]) => {
        if (++read % ROWS_PER_CHECK === 0) checkHeap();
        return record;
      },
    }) as string[][];
  } catch (err) {
    if (err instanceof ParseError) throw err; // stopped near the worker's heap limit
    const message = err instanceof Error ? err.message : String(err);
    const line = /line (\d+)/i.exec(message)?.[1];
    throw new ParseError(
      `The CSV file could not be read${line ? ` (problem near line ${line})` : ""}: check for an unclosed quote or a broken row, then upload again.`,
      { cause: err },
    );
  }
  checkCount(records.length, LIMITS.csvRows, "rows", "CSV");
  checkCount(Math.max(0, ...records.slice(0, 1000).map((r) => r.length)), LIMITS.csvColumns, "columns", "CSV");
  const { blocks, columns, rows } = csvRowsToBlocks(records, checkHeap);
  return finishDocument({
    kind: "csv",
    title: titleFromFilename(filename),
    blocks,
    metadata: { row_count: rows, columns },
  });
}
