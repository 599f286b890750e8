// parseDocument in a worker thread with a time and memory limit (design §7), so one hostile or
// pathological file fails alone instead of stalling or crashing the ingest process.
//
// Starting a worker costs a few hundred ms under tsx (loader registration, transpiling), which
// would dominate ingest of many small files. So a worker that finished a parse cleanly is kept
// for the next one (a few idle workers, unref'd, retired when idle, after many parses, or when
// its heap has grown). A worker that timed out, ran out of memory or crashed is terminated and
// never reused.
import os from "node:os";
import { Worker } from "node:worker_threads";
import type { ChunkDraft, FileKind, ParsedDocument } from "../types.js";
import type { ChunkOptions } from "../chunk.js";
import { ParseError } from "./errors.js";
import { parseTimeoutMs } from "./limits.js";
import type { ParseRequest, ParseWorkerMessage } from "./parse-worker.js";

export interface IsolatedParseOptions {
  /** wall-clock limit for this parse once a worker is ready; default proportional to the size (parseTimeoutMs) */
  timeoutMs?: number;
  /** V8 old-generation heap limit of the worker; default 512 MB */
  maxOldGenerationSizeMb?: number;
  /** whether the machine is too busy to blame a slow parse on the file; default: load average above the cores */
  machineBusy?: () => boolean;
}

/**
 * A parse that ran out of time while the machine was overloaded: the clock is wall time, so this
 * says nothing about the file. Not a ParseError, so the job queue retries it with backoff; a file
 * that is slow on a quiet machine fails as a ParseError at once.
 */
export class ParseBusyError extends Error {}

export function loadAboveCores(): boolean {
  return os.loadavg()[0] > os.availableParallelism();
}

const DEFAULT_MAX_OLD_MB = 512;
// Starting a worker is not the file's fault: its own, generous limit (a loaded machine under tsx
// can take seconds), after which the file's own size-based limit starts.
const WORKER_START_TIMEOUT_MS = 60_000;
const MAX_IDLE_WORKERS = 2;
const IDLE_TTL_MS = 30_000;
const MAX_PARSES_PER_WORKER = 200;
// A worker whose heap after a parse is above this share of its limit is retired, so a later,
// innocent file does not fail for memory an earlier one left behind.
const MAX_HEAP_SHARE_TO_REUSE = 0.5;

interface ParseWorker {
  worker: Worker;
  maxOldMb: number;
  ready: boolean;
  parses: number;
  idleTimer?: NodeJS.Timeout;
  /** called once when the worker has loaded the parsers */
  onReady?: () => void;
  /** the in-flight parse, if any */
  onMessage?: (m: ParseWorkerMessage) => void;
  onFailure?: (err: Error & { code?: string }, exited: boolean) => void;
}

const idle: ParseWorker[] = [];
let nextId = 1;

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function workerEntry(): URL {
  const worker = new URL(import.meta.url.endsWith(".ts") ? "./parse-worker.ts" : "./parse-worker.js", import.meta.url);
  if (!worker.pathname.endsWith(".ts")) return worker;
  // Under tsx and vitest this module and the worker are TypeScript. On Node 20, loader hooks
  // given to a Worker through execArgv (`--import tsx`) are not applied to the worker's entry
  // module (nodejs/node#47747), so a tiny ESM bootstrap registers tsx inside the worker first
  // and then imports the real entry. A compiled build loads parse-worker.js directly.
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(worker.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

function spawn(maxOldMb: number): ParseWorker {
  const worker = new Worker(workerEntry(), {
    resourceLimits: { maxOldGenerationSizeMb: maxOldMb, stackSizeMb: 8 },
  });
  const pw: ParseWorker = { worker, maxOldMb, ready: false, parses: 0 };
  worker.on("message", (m: ParseWorkerMessage) => {
    if (m.type === "ready") {
      pw.ready = true;
      pw.onReady?.();
    } else pw.onMessage?.(m);
  });
  worker.on("error", (err: Error & { code?: string }) => {
    dropIdle(pw);
    pw.onFailure?.(err, false);
  });
  worker.on("exit", (code) => {
    dropIdle(pw);
    pw.onFailure?.(Object.assign(new Error(`parse worker exited with code ${code}`), { code: "EXIT" }), true);
  });
  return pw;
}

function dropIdle(pw: ParseWorker): void {
  const i = idle.indexOf(pw);
  if (i >= 0) idle.splice(i, 1);
  if (pw.idleTimer) clearTimeout(pw.idleTimer);
}

function acquire(maxOldMb: number): ParseWorker {
  const i = idle.findIndex((w) => w.maxOldMb === maxOldMb);
  if (i < 0) return spawn(maxOldMb);
  const [pw] = idle.splice(i, 1);
  if (pw.idleTimer) clearTimeout(pw.idleTimer);
  pw.worker.ref();
  return pw;
}

function release(pw: ParseWorker, heapUsedMb: number): void {
  pw.onReady = undefined;
  pw.onMessage = undefined;
  pw.onFailure = undefined;
  pw.parses++;
  const reusable =
    pw.parses < MAX_PARSES_PER_WORKER && heapUsedMb < pw.maxOldMb * MAX_HEAP_SHARE_TO_REUSE && idle.length < MAX_IDLE_WORKERS;
  if (!reusable) {
    void pw.worker.terminate();
    return;
  }
  pw.worker.unref();
  pw.idleTimer = setTimeout(() => {
    dropIdle(pw);
    void pw.worker.terminate();
  }, IDLE_TTL_MS);
  pw.idleTimer.unref();
  idle.push(pw);
}

function discard(pw: ParseWorker): void {
  pw.onReady = undefined;
  pw.onMessage = undefined;
  pw.onFailure = undefined;
  dropIdle(pw);
  void pw.worker.terminate();
}

/** Warm workers waiting for the next parse (for /health and tests). */
export function idleParseWorkerCount(): number {
  return idle.length;
}

/** Terminates idle parse workers (graceful shutdown, tests). */
export async function closeParseWorkers(): Promise<void> {
  const all = idle.splice(0, idle.length);
  await Promise.all(all.map((pw) => (pw.idleTimer && clearTimeout(pw.idleTimer), pw.worker.terminate())));
}

export function parseIsolated(
  bytes: Buffer,
  kind: FileKind,
  filename: string,
  opts: IsolatedParseOptions = {},
): Promise<ParsedDocument> {
  return runIsolated(bytes, kind, filename, undefined, opts).then((r) => r.doc);
}

/** Parse and chunk in the worker, so neither blocks the caller's event loop on a big file. */
export function parseAndChunkIsolated(
  bytes: Buffer,
  kind: FileKind,
  filename: string,
  chunk: ChunkOptions,
  opts: IsolatedParseOptions = {},
): Promise<{ doc: ParsedDocument; chunks: ChunkDraft[] }> {
  return runIsolated(bytes, kind, filename, chunk, opts).then((r) => ({ doc: r.doc, chunks: r.chunks ?? [] }));
}

function runIsolated(
  bytes: Buffer,
  kind: FileKind,
  filename: string,
  chunk: ChunkOptions | undefined,
  opts: IsolatedParseOptions,
): Promise<{ doc: ParsedDocument; chunks?: ChunkDraft[] }> {
  const timeoutMs = opts.timeoutMs ?? parseTimeoutMs(bytes.length, kind);
  const maxOldMb = opts.maxOldGenerationSizeMb ?? DEFAULT_MAX_OLD_MB;
  const id = nextId++;
  // A copy is transferred: the caller's Buffer may share a pooled ArrayBuffer we must not detach.
  const copy = new Uint8Array(bytes);
  const request: ParseRequest = { id, bytes: copy, kind, filename, chunk };

  return new Promise<{ doc: ParsedDocument; chunks?: ChunkDraft[] }>((resolve, reject) => {
    const pw = acquire(maxOldMb);
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      discard(pw);
      reject(err);
    };
    const tooSlow = () => {
      const took = `Parsing took longer than ${formatDuration(timeoutMs)} (the limit for a file of this size)`;
      if ((opts.machineBusy ?? loadAboveCores)()) {
        const load = os.loadavg()[0].toFixed(1);
        fail(new ParseBusyError(`${took} while the server was overloaded (load ${load} on ${os.availableParallelism()} cores); it will be tried again.`));
      } else {
        fail(new ParseError(`${took} and was stopped. Split the file into smaller files and upload again.`));
      }
    };
    let timer = setTimeout(() => fail(new Error("Parse worker did not start in time")), WORKER_START_TIMEOUT_MS);
    const startClock = () => {
      clearTimeout(timer);
      timer = setTimeout(tooSlow, timeoutMs);
    };
    if (pw.ready) startClock();
    else pw.onReady = startClock;

    pw.onMessage = (m) => {
      if (settled || m.type === "ready" || m.id !== id) return;
      settled = true;
      clearTimeout(timer);
      release(pw, m.heapUsedMb);
      if (m.type === "done") resolve({ doc: m.doc, chunks: m.chunks });
      else reject(m.parseError ? new ParseError(m.message) : new Error(`Parser failed: ${m.message}`));
    };
    pw.onFailure = (err, exited) => {
      if (err.code === "ERR_WORKER_OUT_OF_MEMORY") {
        fail(
          new ParseError(
            `Parsing needed more than ${maxOldMb} MB of memory and was stopped. Split the file into smaller files and upload again.`,
            { cause: err },
          ),
        );
      } else if (pw.ready) {
        const how = exited ? "stopped unexpectedly" : "crashed on it";
        fail(new ParseError(`The file could not be parsed (the parser ${how}). Re-save the file and upload again.`, { cause: err }));
      } else {
        // Failing before the parser was even loaded is an installation problem, not the file's fault.
        fail(new Error(`Parse worker failed to start: ${err.message}`, { cause: err }));
      }
    };
    pw.worker.postMessage(request, [copy.buffer as ArrayBuffer]);
  });
}
