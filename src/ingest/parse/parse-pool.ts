// The parser workers (parse-worker.ts), pooled by piscina: one pool per heap limit, because a
// worker's V8 resource limits are fixed when it starts.
//
// Starting a worker costs a few hundred ms under tsx (loader registration, transpiling), which
// would dominate ingest of many small files, so a worker that finished a parse stays for the next
// one until it has been idle for IDLE_TTL_MS (idle workers are unref'd and keep no process alive).
// A worker whose parse was aborted (time limit) or that died (memory limit, crash) is terminated
// by piscina and never reused. (The hand-rolled pool before piscina also retired a worker after
// 200 parses or when its heap stayed above half its limit; piscina has neither, and V8 collects a
// parse's garbage before the limit is reached, so only memory a parser library keeps across files
// could fail a later one; a worker idle for IDLE_TTL_MS takes such memory with it.)
import os from "node:os";
import { Piscina } from "piscina";
import { taskFile } from "../../workers/task-file.js";
import type { ParseRequest, ParseResult } from "./parse-worker.js";

const IDLE_TTL_MS = 30_000;
/** Parses run at once per heap limit: they are CPU-bound, so more than the cores only adds memory. */
export const PARSE_THREADS = Math.max(2, os.availableParallelism());

const pools = new Map<number, Piscina<ParseRequest, ParseResult>>();
/** per pool, the parses still waiting for a worker: told when a worker fails before it is ready */
const waiting = new WeakMap<Piscina, Set<(err: Error) => void>>();

/**
 * The young generation of a worker with this old-generation limit: an eighth of it, at least 4 MB.
 * V8's own default is 192 MB whatever the limit, so one scavenge could promote tens of MB into the
 * old generation at once, past the limit by more than the allowance Node gives a worker it is
 * stopping, which aborts the whole process instead of the worker (nodejs/node#47224: 3 runs of 12
 * aborted with a 7.7 MB Markdown file at a 32 MB limit, 0 of 16 with this). At the default 512 MB
 * limit it is 64 MB: a 9.7 MB Markdown file parsed in 4.0-4.7 s against 3.7-4.6 s with 192.
 */
export function youngGenerationMb(maxOldMb: number): number {
  return Math.max(4, Math.round(maxOldMb / 8));
}

/** The pool whose workers have this heap limit (old generation, in MB). */
export function parsePool(maxOldMb: number): Piscina<ParseRequest, ParseResult> {
  let pool = pools.get(maxOldMb);
  if (!pool) {
    pool = new Piscina<ParseRequest, ParseResult>({
      ...taskFile(import.meta.url, "parse-worker"),
      minThreads: 0,
      maxThreads: PARSE_THREADS,
      idleTimeout: IDLE_TTL_MS,
      resourceLimits: { maxOldGenerationSizeMb: maxOldMb, maxYoungGenerationSizeMb: youngGenerationMb(maxOldMb), stackSizeMb: 8 },
    });
    pools.set(maxOldMb, pool);
    const waiters = new Set<(err: Error) => void>();
    waiting.set(pool, waiters);
    // piscina emits 'error' for a worker that failed with no task of its own, typically while
    // loading the parsers (a broken installation). The queued tasks would wait for a worker that
    // never comes, and without a listener the event would throw in the ingest process.
    pool.on("error", (err: Error) => {
      for (const fail of [...waiters]) fail(err);
    });
  }
  return pool;
}

/** Calls `fail` if a worker of `pool` fails before it is ready; returns the unsubscribe. */
export function onWorkerStartFailure(pool: Piscina, fail: (err: Error) => void): () => void {
  const waiters = waiting.get(pool);
  waiters?.add(fail);
  return () => void waiters?.delete(fail);
}

/** Warm workers waiting for the next parse (for /health and tests). */
export function idleParseWorkerCount(): number {
  let n = 0;
  for (const pool of pools.values()) n += pool.idleThreads;
  return n;
}

/** Terminates the parse workers (graceful shutdown, tests); a parse still running fails. */
export async function closeParseWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((pool) => pool.destroy()));
}
