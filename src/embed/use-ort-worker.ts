// Worker thread that runs Universal Sentence Encoder lite on onnxruntime (the default `onnx`
// runtime; see use-lite-ort.ts). workerData.threads sets its intra-op threads, workerData.int8
// selects the int8 graph, workerData.graph (shared memory) is the graph the embedder built.
import { workerData } from "node:worker_threads";
import { loadOrtUseLite } from "./use-lite-ort.js";
import { serveUseLite } from "./use-worker-host.js";

const data = (workerData ?? {}) as { threads?: unknown; int8?: unknown; graph?: unknown };
serveUseLite(() =>
  loadOrtUseLite({
    threads: typeof data.threads === "number" ? data.threads : 1,
    int8: data.int8 === true,
    graph: data.graph instanceof Uint8Array ? data.graph : undefined,
  }),
);
