// A parser's own check against its worker's heap limit. V8 stops a worker thread that reaches its
// resourceLimits cleanly (ERR_WORKER_OUT_OF_MEMORY) only for some allocation shapes: one array
// grown row by row (csv-parse's records) can reach the limit in a single allocation that fails
// after the last GC, and that aborts the whole process ("Reached heap limit Allocation failed",
// nodejs/node#47224), server and all, instead of the worker. So the parsers that build one record
// per row check the heap as they go and stop themselves, with the same message the pool gives a
// worker stopped on its limit, once the old generation holds most of the limit.
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { isMainThread, resourceLimits } from "node:worker_threads";
import { ParseError } from "./errors.js";

/** the share of the worker's old-generation limit at which a parser stops itself */
const STOP_AT = 0.85;
/** rows between two checks: a check reads V8's heap space statistics (a handful of numbers) */
export const ROWS_PER_CHECK = 1000;

export function memoryExceededMessage(maxOldMb: number): string {
  return `Parsing needed more than ${maxOldMb} MB of memory and was stopped. Split the file into smaller files and upload again.`;
}

/** The old generation's use: every heap space but the young generation's. */
function oldGenerationBytes(): number {
  let used = 0;
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name !== "new_space" && s.space_name !== "new_large_object_space") used += s.space_used_size;
  return used;
}

let collect: (() => void) | null = null;

/**
 * A full collection, so what is counted is live: a warm worker's heap still holds the garbage of
 * the files it parsed before (the way jest's leak detector reaches V8's gc without --expose-gc;
 * the flag is process-wide, so contexts made afterwards also see a global gc(), which nothing here
 * reads).
 */
function collectGarbage(): void {
  if (!collect) {
    v8.setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}

/**
 * A check to call every ROWS_PER_CHECK rows: throws ParseError when the live heap is near this
 * worker's limit. In the main thread (no limit of its own) it does nothing.
 */
export function heapGuard(): () => void {
  const limitMb = isMainThread ? 0 : (resourceLimits.maxOldGenerationSizeMb ?? 0);
  if (!limitMb) return () => undefined;
  const stopAt = limitMb * 1024 * 1024 * STOP_AT;
  return () => {
    if (oldGenerationBytes() <= stopAt) return;
    collectGarbage(); // rare: only once the heap, garbage included, is near the limit
    if (oldGenerationBytes() > stopAt) throw new ParseError(memoryExceededMessage(limitMb));
  };
}
