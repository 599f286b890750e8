// The message loop every USE lite worker thread runs, whatever runs the model in it (TensorFlow.js
// in use-worker.ts, onnxruntime in use-ort-worker.ts).
//
// Protocol (see use-lite.ts): the worker posts {type:"ready"} or {type:"load-error"} once, then
// answers each {type:"embed"} with {type:"result"} (one flat Float32Array, transferred) or
// {type:"error"}.
import { parentPort } from "node:worker_threads";
import { embedTexts, type RunWindows, type WindowPlan } from "./use-lite-windows.js";

export interface EmbedRequest extends WindowPlan {
  type: "embed";
  id: number;
  texts: string[];
}

/** Ends the worker at its next turn of the event loop, never inside a model call: terminating a
 * thread while onnxruntime's native code runs in it aborts the whole process. */
export interface StopRequest {
  type: "stop";
}

export type WorkerMessage =
  | { type: "ready"; loadMs: number }
  | { type: "load-error"; message: string }
  | { type: "result"; id: number; vectors: Float32Array; windows: number; tokens: number }
  | { type: "error"; id: number; message: string };

export interface LoadedModel {
  encode(text: string): number[];
  run: RunWindows;
}

/** Loads the model, says ready (after one tiny call that warms the kernels), then serves requests
 * one at a time: the model call is synchronous underneath, so running two would only interleave
 * them and delay both. */
export function serveUseLite(load: () => Promise<LoadedModel>): void {
  const port = parentPort;
  if (!port) throw new Error("a USE lite worker must run in a worker thread");
  let model: LoadedModel | null = null;
  const t0 = performance.now();
  const loading = load()
    .then(async (m) => {
      await m.run([[11]]);
      model = m;
      port.postMessage({ type: "ready", loadMs: Math.round(performance.now() - t0) } satisfies WorkerMessage);
    })
    .catch((err: unknown) => {
      port.postMessage({ type: "load-error", message: errorText(err) } satisfies WorkerMessage);
    });

  let chain: Promise<void> = loading;
  port.on("message", (msg: EmbedRequest | StopRequest) => {
    if (msg.type === "stop") process.exit(0);
    if (msg.type !== "embed") return;
    chain = chain.then(async () => {
      try {
        if (!model) throw new Error("model not loaded");
        const out = await embedTexts(msg.texts, model.encode, msg, model.run);
        port.postMessage(
          { type: "result", id: msg.id, vectors: out.vectors, windows: out.windows, tokens: out.tokens } satisfies WorkerMessage,
          [out.vectors.buffer as ArrayBuffer],
        );
      } catch (err) {
        port.postMessage({ type: "error", id: msg.id, message: errorText(err) } satisfies WorkerMessage);
      }
    });
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
