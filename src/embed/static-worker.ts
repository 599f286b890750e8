// Worker thread that builds the static token-vector table (static-table.ts) off the event loop:
// loading the model and running it over 8,000 pieces keeps a core busy for several seconds.
//
// Protocol: workerData is { file }; the worker posts {type:"progress"} per batch, then
// {type:"built"} or {type:"failed"} once, and ends.
import { parentPort, workerData } from "node:worker_threads";
import { buildStaticTable, type StaticTableHeader } from "./static-table.js";

export type StaticWorkerMessage =
  | { type: "progress"; done: number; total: number }
  | { type: "built"; header: StaticTableHeader }
  | { type: "failed"; message: string };

const port = parentPort;
if (!port) throw new Error("static-worker.ts must run in a worker thread");
const { file } = workerData as { file: string };

buildStaticTable(file, (done, total) => port.postMessage({ type: "progress", done, total } satisfies StaticWorkerMessage))
  .then((header) => port.postMessage({ type: "built", header } satisfies StaticWorkerMessage))
  .catch((err: unknown) =>
    port.postMessage({ type: "failed", message: err instanceof Error ? err.message : String(err) } satisfies StaticWorkerMessage),
  );
