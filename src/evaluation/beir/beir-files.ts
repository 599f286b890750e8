// Loader for data sets in BEIR format (corpus.jsonl, queries.jsonl, qrels/<split>.tsv), used by
// the benchmarks. Files are streamed line by line: corpora run to millions of documents.

import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface BeirDocument {
  id: string;
  title: string;
  text: string;
  metadata: Record<string, unknown>;
}

/** query id -> (document id -> grade); only grades > 0 are kept */
export type BeirQrels = Map<string, Map<string, number>>;

export class BeirFormatError extends Error {
  constructor(file: string, line: number, reason: string) {
    super(`${file}:${line}: ${reason}`);
    this.name = "BeirFormatError";
  }
}

/** Lines of a text file without their terminators (LF or CRLF), with 1-based line numbers. */
async function* lines(file: string): AsyncGenerator<{ line: string; number: number }> {
  // crlfDelay: Infinity makes readline treat \r\n as one break wherever the chunks split.
  const rl = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of rl) {
      number++;
      yield { line: line.endsWith("\r") ? line.slice(0, -1) : line, number };
    }
  } finally {
    rl.close();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function* jsonLines(file: string): AsyncGenerator<{ value: Record<string, unknown>; number: number }> {
  for await (const { line, number } of lines(file)) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new BeirFormatError(file, number, `invalid JSON (${(err as Error).message})`);
    }
    if (!isRecord(value)) throw new BeirFormatError(file, number, "expected a JSON object");
    yield { value, number };
  }
}

/** BEIR ids are strings, but some exports write numbers; both become strings. */
function idOf(value: Record<string, unknown>, file: string, number: number): string {
  const id = value["_id"];
  if (typeof id === "string" && id !== "") return id;
  if (typeof id === "number" && Number.isFinite(id)) return String(id);
  throw new BeirFormatError(file, number, "missing _id");
}

function stringField(value: Record<string, unknown>, key: string): string {
  const v = value[key];
  return typeof v === "string" ? v : "";
}

/** Documents of `dir/corpus.jsonl` in file order (missing title/text read as ""). */
export async function* readCorpus(dir: string): AsyncGenerator<BeirDocument> {
  const file = join(dir, "corpus.jsonl");
  for await (const { value, number } of jsonLines(file)) {
    const metadata = value["metadata"];
    yield {
      id: idOf(value, file, number),
      title: stringField(value, "title"),
      text: stringField(value, "text"),
      metadata: isRecord(metadata) ? metadata : {},
    };
  }
}

/** `dir/queries.jsonl` as query id -> query text (all splits; filter by the qrels' keys). */
export async function readQueries(dir: string): Promise<Map<string, string>> {
  const file = join(dir, "queries.jsonl");
  const out = new Map<string, string>();
  for await (const { value, number } of jsonLines(file)) out.set(idOf(value, file, number), stringField(value, "text"));
  return out;
}

/**
 * `dir/qrels/<split>.tsv` (header `query-id corpus-id score`, tab-separated, CRLF or LF). Rows
 * with grade <= 0 are judged non-relevant and left out; a query whose rows are all non-relevant
 * is therefore absent. A repeated (query, doc) pair keeps its last grade.
 */
export async function readQrels(dir: string, split: string): Promise<BeirQrels> {
  if (!/^[\w.-]+$/.test(split)) throw new RangeError(`invalid split name: ${split}`);
  const file = join(dir, "qrels", `${split}.tsv`);
  const out: BeirQrels = new Map();
  for await (const { line, number } of lines(file)) {
    if (line.trim() === "") continue;
    const fields = line.split("\t");
    if (number === 1 && fields[0]?.trim() === "query-id") continue;
    const [queryId, docId, score] = fields.map((f) => f.trim());
    if (!queryId || !docId || score === undefined || score === "") {
      throw new BeirFormatError(file, number, "expected 3 tab-separated fields: query-id, corpus-id, score");
    }
    const grade = Number(score);
    if (!Number.isFinite(grade)) throw new BeirFormatError(file, number, `score is not a number: ${score}`);
    if (grade <= 0) {
      out.get(queryId)?.delete(docId);
      if (out.get(queryId)?.size === 0) out.delete(queryId);
      continue;
    }
    let docs = out.get(queryId);
    if (!docs) {
      docs = new Map();
      out.set(queryId, docs);
    }
    docs.set(docId, grade);
  }
  return out;
}
