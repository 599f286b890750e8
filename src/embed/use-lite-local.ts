// USE lite queries embedded on the calling thread, the int8 profile's default (its query costs
// ~0.7 ms of model time): a search is about 1 ms faster than through a query worker and the
// process spares the worker (a thread and its own isolate, ~30 MB with int8), at the cost of running
// the model on the event loop: hybrid QPS at 8 clients was about a fifth lower (docs/benchmarks.md,
// "New deployments run int8"). The float model's 2.5-3.5 ms would stall the event loop for longer.
import { embedTexts, type WindowPlan } from "./use-lite-windows.js";

export interface LocalUseLite {
  embed(text: string): Promise<{ vector: Float32Array; windows: number; tokens: number }>;
  release(): Promise<void>;
}

export async function loadLocalUseLite(plan: WindowPlan, int8: boolean, graph?: Uint8Array): Promise<LocalUseLite> {
  // Imported here, not at the top: onnxruntime's native binding loads only where it is used.
  const { loadOrtUseLite } = await import("./use-lite-ort.js");
  const model = await loadOrtUseLite({ threads: 1, int8, graph });
  return {
    async embed(text) {
      const out = await embedTexts([text], model.encode, plan, model.run);
      return { vector: out.vectors, windows: out.windows, tokens: out.tokens };
    },
    release: model.release,
  };
}
