// Worker-thread side of isolated.ts: a piscina task that parses (and optionally chunks) one file.
// It says "started" on the task's own port before parsing, so the parent starts the file's clock
// only once a worker is actually on it (starting a worker under tsx is not the file's fault).
// Failures are returned, not thrown: a thrown error crosses the thread as a plain Error, and the
// parent needs to know whether it was a ParseError (the file's fault) or a parser bug.
import type { MessagePort } from "node:worker_threads";
import type { ChunkDraft, FileKind, ParsedDocument } from "../types.js";
import { chunkDocument, type ChunkOptions } from "../chunk.js";
import { ParseError } from "./errors.js";
import { parseDocument } from "./index.js";

export interface ParseRequest {
  bytes: Uint8Array;
  kind: FileKind;
  filename: string;
  /** when set, the worker also chunks the document (chunking a big file is CPU-heavy too) */
  chunk?: ChunkOptions;
  /** receives "started" when the parse begins; the parent closes it when the task settles */
  progress: MessagePort;
}

export type ParseResult =
  | { type: "done"; doc: ParsedDocument; chunks?: ChunkDraft[] }
  | { type: "failed"; parseError: boolean; message: string };

export default async function parseTask(req: ParseRequest): Promise<ParseResult> {
  req.progress.postMessage("started");
  try {
    const doc = await parseDocument(Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength), req.kind, req.filename);
    const chunks = req.chunk ? chunkDocument(doc, req.chunk) : undefined;
    return { type: "done", doc, chunks };
  } catch (err) {
    return { type: "failed", parseError: err instanceof ParseError, message: err instanceof Error ? err.message : String(err) };
  }
}
