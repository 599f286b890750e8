// How USE lite embeds a text, whatever runs the model (TensorFlow.js or onnxruntime): SentencePiece
// ids cut into overlapping windows, windows batched shortest first so a model call pads little,
// and a text's vector the normalised mean of its windows' vectors.
import { l2normalize } from "./vector.js";

/** the model's vectors: 512 dimensions, whatever runs it */
export const USE_LITE_DIMENSION = 512;

export interface WindowPlan {
  /** the model clips at 128 tokens; longer texts are embedded as windows of this many tokens */
  windowTokens: number;
  /** start-to-start distance of consecutive windows (window - overlap) */
  windowStride: number;
  /** most windows per model call; padded tokens per call are capped at batch * windowTokens */
  batchSize: number;
}

/** one model call: the windows' token ids in, one 512-d vector per window out (flat) */
export type RunWindows = (windows: number[][]) => Promise<Float32Array>;

export interface EmbeddedTexts {
  /** texts.length x 512, each row L2-normalised */
  vectors: Float32Array;
  windows: number;
  tokens: number;
}

/** Token windows of one text: the whole text when it fits, else overlapping windows whose last one
 * ends at the last token (so the tail is never dropped and never a tiny fragment). */
export function windowsOf(ids: number[], size: number, stride: number): number[][] {
  if (ids.length === 0) return [[30]]; // "" -> the model's whitespace piece; an empty row breaks TF's SparseToDense
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
export async function embedWindows(windows: number[][], plan: WindowPlan, run: RunWindows): Promise<Float32Array[]> {
  const order = windows.map((_, i) => i).sort((a, b) => windows[a].length - windows[b].length);
  const out: Float32Array[] = new Array(windows.length);
  const tokenBudget = plan.batchSize * plan.windowTokens;
  let i = 0;
  while (i < order.length) {
    // Grow the batch while count and padded size (rows * longest row) stay within budget.
    let j = i;
    while (j < order.length && j - i < plan.batchSize && (j - i + 1) * windows[order[j]].length <= tokenBudget) j++;
    if (j === i) j = i + 1;
    const batch = order.slice(i, j);
    const flat = await run(batch.map((k) => windows[k]));
    if (flat.length !== batch.length * USE_LITE_DIMENSION) throw new Error(`the model returned ${flat.length} values for ${batch.length} windows`);
    batch.forEach((k, row) => (out[k] = flat.slice(row * USE_LITE_DIMENSION, (row + 1) * USE_LITE_DIMENSION)));
    i = j;
  }
  return out;
}

/** Tokenizes, windows and embeds texts; a text longer than one window is the normalised mean of
 * its window vectors, which keeps what the whole passage is about, not only its first 128 tokens. */
export async function embedTexts(texts: string[], encode: (text: string) => number[], plan: WindowPlan, run: RunWindows): Promise<EmbeddedTexts> {
  const windows: number[][] = [];
  const owner: number[] = [];
  let tokens = 0;
  texts.forEach((text, t) => {
    const ids = encode(text);
    tokens += ids.length;
    for (const w of windowsOf(ids, plan.windowTokens, plan.windowStride)) {
      windows.push(w);
      owner.push(t);
    }
  });
  const vecs = await embedWindows(windows, plan, run);
  const flat = new Float32Array(texts.length * USE_LITE_DIMENSION);
  vecs.forEach((v, k) => {
    const base = owner[k] * USE_LITE_DIMENSION;
    for (let d = 0; d < USE_LITE_DIMENSION; d++) flat[base + d] += v[d];
  });
  for (let t = 0; t < texts.length; t++) l2normalize(flat.subarray(t * USE_LITE_DIMENSION, (t + 1) * USE_LITE_DIMENSION));
  return { vectors: flat, windows: windows.length, tokens };
}
