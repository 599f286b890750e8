// Worker-thread side of isolated.ts: parses one file per request, one request at a time. It
// posts "ready" once loaded, so the parent can tell a broken installation from a file that
// breaks a parser, and reports its heap after each parse so a bloated worker can be retired.
import { parentPort } from "node:worker_threads";
import { getHeapStatistics } from "node:v8";
import type { ChunkDraft, FileKind, ParsedDocument } from "../types.js";
import { chunkDocument, type ChunkOptions } from "../chunk.js";
import { ParseError } from "./errors.js";
import { parseDocument } from "./index.js";

export interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  kind: FileKind;
  filename: string;
  /** when set, the worker also chunks the document (chunking a big file is CPU-heavy too) */
  chunk?: ChunkOptions;
}

export type ParseWorkerMessage =
  | { type: "ready" }
  | { type: "done"; id: number; doc: ParsedDocument; chunks?: ChunkDraft[]; heapUsedMb: number }
  | { type: "failed"; id: number; parseError: boolean; message: string; heapUsedMb: number };

const port = parentPort;
if (!port) throw new Error("parse-worker must run in a worker thread");
const send = (m: ParseWorkerMessage) => port.postMessage(m);
const heapUsedMb = () => getHeapStatistics().used_heap_size / (1024 * 1024);

port.on("message", async (req: ParseRequest) => {
  try {
    const doc = await parseDocument(Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength), req.kind, req.filename);
    const chunks = req.chunk ? chunkDocument(doc, req.chunk) : undefined;
    send({ type: "done", id: req.id, doc, chunks, heapUsedMb: heapUsedMb() });
  } catch (err) {
    send({
      type: "failed",
      id: req.id,
      parseError: err instanceof ParseError,
      message: err instanceof Error ? err.message : String(err),
      heapUsedMb: heapUsedMb(),
    });
  }
});
send({ type: "ready" });
