// Starts one of this folder's worker modules (use-worker and use-ort-worker, the use-lite pool's)
// in a plain worker thread. Where the module is, compiled or TypeScript, is decided by
// ../workers/task-file.ts, as for the piscina pools: from sources the worker starts
// ../workers/tsx-worker.mjs, which registers tsx inside it and imports the module (on Node 20
// `--import tsx` does not reach a worker).
import { Worker } from "node:worker_threads";
import { taskFile } from "../workers/task-file.js";

/** `data` is merged into the worker's workerData (beside the tsx entry, when there is one). */
export function startModuleWorker(name: string, data: Record<string, unknown> = {}): Worker {
  const { filename, workerData } = taskFile(import.meta.url, name);
  return new Worker(new URL(filename), { workerData: { ...workerData, ...data } });
}
