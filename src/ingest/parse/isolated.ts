// parseDocument in a worker thread with a time and memory limit (design §7), so one hostile or
// pathological file fails alone instead of stalling or crashing the ingest process. The workers
// are a piscina pool (parse-pool.ts); this module owns the limits and what a failure means.
import os from "node:os";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { ChunkDraft, FileKind, ParsedDocument } from "../types.js";
import type { ChunkOptions } from "../chunk.js";
import { ParseError } from "./errors.js";
import { parseTimeoutMs } from "./limits.js";
import { memoryExceededMessage } from "./memory-guard.js";
import { onWorkerStartFailure, parsePool } from "./parse-pool.js";
import type { ParseResult } from "./parse-worker.js";

export { closeParseWorkers, idleParseWorkerCount } from "./parse-pool.js";

export interface IsolatedParseOptions {
  /** wall-clock limit for this parse once a worker is on it; default proportional to the size (parseTimeoutMs) */
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

/** Not the file's fault, so not a ParseError: the job is retried. */
class WorkerStartTimeout extends Error {}

interface Limits {
  timeoutMs: number;
  maxOldMb: number;
  machineBusy: () => boolean;
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

async function runIsolated(
  bytes: Buffer,
  kind: FileKind,
  filename: string,
  chunk: ChunkOptions | undefined,
  opts: IsolatedParseOptions,
): Promise<{ doc: ParsedDocument; chunks?: ChunkDraft[] }> {
  const limits: Limits = {
    timeoutMs: opts.timeoutMs ?? parseTimeoutMs(bytes.length, kind),
    maxOldMb: opts.maxOldGenerationSizeMb ?? DEFAULT_MAX_OLD_MB,
    machineBusy: opts.machineBusy ?? loadAboveCores,
  };
  // A copy is transferred: the caller's Buffer may share a pooled ArrayBuffer we must not detach.
  const copy = new Uint8Array(bytes);
  const { port1, port2 } = new MessageChannel();
  const abort = new AbortController();
  const pool = parsePool(limits.maxOldMb);
  const task = pool.run(
    { bytes: copy, kind, filename, chunk, progress: port2 },
    { transferList: [copy.buffer as ArrayBuffer, port2], signal: abort.signal },
  );
  const clock = watchClock(port1, limits, {
    queued: () => pool.queueSize > 0 && pool.threads.length >= pool.maxThreads,
    onStartFailure: (fail) => onWorkerStartFailure(pool, fail),
  });
  let result: ParseResult;
  try {
    result = await Promise.race([task, clock.expired]);
  } catch (err) {
    // Aborting a running task terminates its worker, so a stuck parser is not left behind.
    abort.abort();
    throw explainFailure(err, clock.started(), limits.maxOldMb);
  } finally {
    clock.stop();
    port1.close();
  }
  return unpack(result);
}

interface Clock {
  /** rejects when the worker did not start in time, or the parse ran over the file's limit */
  expired: Promise<never>;
  started(): boolean;
  stop(): void;
}

interface PoolWatch {
  /** whether the task is only waiting its turn in a full pool */
  queued(): boolean;
  /** subscribes to workers failing before they are ready; returns the unsubscribe */
  onStartFailure(fail: (err: Error) => void): () => void;
}

/**
 * The start limit until the worker says "started" on `progress`, then the file's own limit. While
 * the task only waits its turn in a full pool, the start limit is extended.
 */
function watchClock(progress: MessagePort, limits: Limits, pool: PoolWatch): Clock {
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe = () => {};
  const expired = new Promise<never>((_, reject) => {
    const notStarted = () => {
      if (pool.queued()) timer = setTimeout(notStarted, WORKER_START_TIMEOUT_MS);
      else reject(new WorkerStartTimeout("Parse worker did not start in time"));
    };
    timer = setTimeout(notStarted, WORKER_START_TIMEOUT_MS);
    unsubscribe = pool.onStartFailure(reject);
    progress.once("message", () => {
      started = true;
      unsubscribe();
      clearTimeout(timer);
      timer = setTimeout(() => reject(tooSlow(limits)), limits.timeoutMs);
    });
  });
  const stop = () => {
    clearTimeout(timer);
    unsubscribe();
  };
  return { expired, started: () => started, stop };
}

function unpack(result: ParseResult): { doc: ParsedDocument; chunks?: ChunkDraft[] } {
  if (result.type === "done") return { doc: result.doc, chunks: result.chunks };
  throw result.parseError ? new ParseError(result.message) : new Error(`Parser failed: ${result.message}`);
}

function tooSlow(limits: Limits): Error {
  const took = `Parsing took longer than ${formatDuration(limits.timeoutMs)} (the limit for a file of this size)`;
  if (!limits.machineBusy()) return new ParseError(`${took} and was stopped. Split the file into smaller files and upload again.`);
  const load = os.loadavg()[0].toFixed(1);
  return new ParseBusyError(`${took} while the server was overloaded (load ${load} on ${os.availableParallelism()} cores); it will be tried again.`);
}

/** What a failed parse means for the document: the file's fault (ParseError) or not (retried). */
function explainFailure(err: unknown, started: boolean, maxOldMb: number): Error {
  const e: Error & { code?: string } = err instanceof Error ? err : new Error(String(err));
  // The clock's verdicts are already worded for the document.
  if (e instanceof ParseError || e instanceof ParseBusyError || e instanceof WorkerStartTimeout) return e;
  if (e.code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new ParseError(memoryExceededMessage(maxOldMb), { cause: e });
  }
  // piscina rejects a task with AbortError when its pool is closed (shutdown): not the file's fault.
  if (e.name === "AbortError") return new Error(`Parsing was interrupted: ${e.message}`, { cause: e });
  // Failing before the parser was even loaded is an installation problem, not the file's fault.
  if (!started) return new Error(`Parse worker failed to start: ${e.message}`, { cause: e });
  const how = /^worker exited with code/.test(e.message) ? "stopped unexpectedly" : "crashed on it";
  return new ParseError(`The file could not be parsed (the parser ${how}). Re-save the file and upload again.`, { cause: e });
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
