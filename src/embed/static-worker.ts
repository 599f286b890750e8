// piscina task that builds the static token-vector table (static-table.ts) off the event loop:
// loading the model and running it over 8,000 pieces keeps a core busy for several seconds.
// Progress goes out on the task's own port as {done, total} per batch; a failure is thrown.
import type { MessagePort } from "node:worker_threads";
import { buildStaticTable, type StaticTableHeader } from "./static-table.js";

export interface StaticBuildTask {
  file: string;
  /** receives a StaticBuildProgress per batch; the parent closes it when the task settles */
  progress: MessagePort;
}

export interface StaticBuildProgress {
  done: number;
  total: number;
}

export default function buildTask({ file, progress }: StaticBuildTask): Promise<StaticTableHeader> {
  return buildStaticTable(file, (done, total) => progress.postMessage({ done, total } satisfies StaticBuildProgress));
}
