// Local ONNX embedding models through @huggingface/transformers (onnxruntime-node).
//
// Lookup: MODELS_DIR/<model id>/ (config.json, tokenizer.json, tokenizer_config.json,
// onnx/model.onnx or onnx/model_quantized.onnx) first; a download from the hub only when
// allowDownload is set, written into MODELS_DIR so the next start finds it offline.
// onnxruntime runs inference on its own native threads, so the event loop stays free without a
// worker pool; calls are serialised (queries first) so an upload's batches do not oversubscribe
// the cores and a query never waits behind more than the batch in flight.
import fs from "node:fs";
import path from "node:path";
import type { ProgressInfo } from "@huggingface/transformers";
import { EmbedderUnavailableError, EmbeddingError } from "./errors.js";
import { silentLogger, type EmbedLogger } from "./logger.js";
import { SerialRunner } from "./serial.js";
import { l2normalize } from "./vector.js";
import type { Embedder, EmbedderStatus, EmbeddingProfile } from "./types.js";

export interface OnnxOptions {
  /** MODELS_DIR: where <model id>/ folders are looked up (and downloads are written) */
  modelsDir: string;
  /** ALLOW_MODEL_DOWNLOAD: fetch missing models from the Hugging Face hub */
  allowDownload: boolean;
  logger?: EmbedLogger;
}

export type Pooling = "cls" | "mean";

/** The slice of the transformers.js API used here, typed narrowly at the boundary. */
interface HfTensor {
  data: ArrayLike<number | bigint>;
  dims: number[];
}
type HfTokenizer = (
  texts: string[],
  options: { padding: boolean; truncation: boolean; max_length: number },
) => Record<string, HfTensor>;
interface HfModel {
  (inputs: Record<string, HfTensor>): Promise<Record<string, HfTensor>>;
  dispose(): Promise<unknown>;
}

export class OnnxEmbedder implements Embedder {
  readonly profile: EmbeddingProfile;
  private readonly log: EmbedLogger;
  private readonly pooling: Pooling;
  private readonly normalize: boolean;
  private readonly batchSize: number;
  private readonly runner = new SerialRunner();
  private state: EmbedderStatus;
  private tokenizer: HfTokenizer | null = null;
  private model: HfModel | null = null;
  private readonly ready: Promise<boolean>;
  private closed = false;

  constructor(profile: EmbeddingProfile, private readonly options: OnnxOptions) {
    this.profile = profile;
    this.log = options.logger ?? silentLogger;
    const o = profile.options;
    this.pooling = o.pooling === "cls" ? "cls" : "mean";
    this.normalize = o.normalize !== false;
    this.batchSize = typeof o.batch_size === "number" && o.batch_size > 0 ? o.batch_size : 32;
    this.state = { state: "loading", detail: `Loading ONNX model ${profile.model}.` };
    this.ready = this.load();
  }

  /** Where the model's files are expected locally. */
  get modelDir(): string {
    return path.join(this.options.modelsDir, ...this.profile.model.split("/"));
  }

  status(): EmbedderStatus {
    return { ...this.state };
  }

  whenReady(): Promise<boolean> {
    return this.ready;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.embed([this.profile.query_prefix + text], "query");
    return v;
  }

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const prefixed = texts.map((t) => this.profile.passage_prefix + t);
    const order = prefixed.map((_, i) => i).sort((a, b) => prefixed[a].length - prefixed[b].length);
    const out: Float32Array[] = new Array(texts.length);
    const batches: Promise<void>[] = [];
    for (let i = 0; i < order.length; i += this.batchSize) {
      const idx = order.slice(i, i + this.batchSize);
      batches.push(
        this.embed(idx.map((k) => prefixed[k]), "passage").then((vs) => idx.forEach((k, j) => (out[k] = vs[j]))),
      );
    }
    await Promise.all(batches);
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ready;
    const model = this.model;
    this.model = null;
    this.tokenizer = null;
    if (model) await model.dispose().catch(() => undefined);
  }

  private async embed(texts: string[], priority: "query" | "passage"): Promise<Float32Array[]> {
    if (this.state.state === "loading") await this.ready;
    if (this.closed) throw new EmbedderUnavailableError("The embedder was closed.");
    if (this.state.state !== "ready") {
      throw new EmbedderUnavailableError(this.state.detail ?? `ONNX model ${this.profile.model} is unavailable.`);
    }
    return this.embedNow(texts, priority);
  }

  private async embedNow(texts: string[], priority: "query" | "passage"): Promise<Float32Array[]> {
    if (!this.model || !this.tokenizer) {
      throw new EmbedderUnavailableError(this.state.detail ?? `ONNX model ${this.profile.model} is unavailable.`);
    }
    const model = this.model;
    const tokenizer = this.tokenizer;
    return this.runner.run(priority, async () => {
      try {
        const inputs = tokenizer(texts, { padding: true, truncation: true, max_length: this.profile.max_input_tokens });
        const outputs = await model(inputs);
        return this.pool(outputs, inputs.attention_mask, texts.length);
      } catch (err) {
        if (err instanceof EmbeddingError) throw err;
        throw new EmbeddingError(`ONNX model ${this.profile.model} failed to embed: ${(err as Error).message}`, false, { cause: err });
      }
    });
  }

  /** [batch, seq, dim] hidden states -> one vector per text (CLS token or masked mean). */
  private pool(outputs: Record<string, HfTensor>, mask: HfTensor | undefined, n: number): Float32Array[] {
    const hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.sentence_embedding;
    if (!hidden) {
      throw new EmbeddingError(
        `ONNX model ${this.profile.model} has none of the outputs last_hidden_state, token_embeddings, sentence_embedding ` +
          `(it has ${Object.keys(outputs).join(", ")}).`,
        false,
      );
    }
    const dims = hidden.dims;
    const dim = dims[dims.length - 1];
    if (dim !== this.profile.dimension) {
      throw new EmbeddingError(
        `ONNX model ${this.profile.model} produces ${dim}-dimensional vectors but profile "${this.profile.name}" declares ` +
          `dimension ${this.profile.dimension}. Fix the profile's dimension (then reindex).`,
        false,
      );
    }
    const data = hidden.data as Float32Array;
    const out: Float32Array[] = [];
    if (dims.length === 2) {
      // Already pooled by the exported graph (sentence-transformers exports).
      for (let b = 0; b < n; b++) out.push(data.slice(b * dim, (b + 1) * dim));
    } else {
      const seq = dims[1];
      for (let b = 0; b < n; b++) {
        const v = new Float32Array(dim);
        if (this.pooling === "cls") {
          v.set(data.subarray(b * seq * dim, b * seq * dim + dim));
        } else {
          let count = 0;
          for (let t = 0; t < seq; t++) {
            if (mask && Number(mask.data[b * seq + t]) === 0) continue;
            const base = (b * seq + t) * dim;
            for (let d = 0; d < dim; d++) v[d] += data[base + d];
            count++;
          }
          if (count > 0) for (let d = 0; d < dim; d++) v[d] /= count;
        }
        out.push(v);
      }
    }
    // normalize=false exists for experiments with models whose raw norm carries meaning; the
    // Embedder contract (and cosine kNN) expects unit vectors, so load() warns about it.
    if (this.normalize) for (const v of out) l2normalize(v);
    return out;
  }

  private async load(): Promise<boolean> {
    const { modelsDir, allowDownload } = this.options;
    const id = this.profile.model;
    const local = hasLocalModel(this.modelDir);
    if (!local && !allowDownload) {
      return this.fail(
        `ONNX model ${id} was not found in MODELS_DIR (expected ${this.modelDir}/ with config.json, tokenizer.json and ` +
          `onnx/model.onnx) and model downloads are off. Copy the model there (e.g. \`huggingface-cli download ${id} ` +
          `--local-dir ${this.modelDir}\` on a machine with network) or set ALLOW_MODEL_DOWNLOAD=true.`,
      );
    }
    // imported here, not at the top: transformers.js and its runtime take about half a second to
    // load, which every process (and test worker) would pay although most never use an ONNX profile
    const { AutoModel, AutoTokenizer, env, LogLevel } = await import("@huggingface/transformers");
    // transformers.js keeps these settings globally; every ONNX embedder of a process shares one
    // MODELS_DIR, so setting them per load is harmless. cacheDir = modelsDir stores downloads as
    // <modelsDir>/<model id>/<file>, exactly where the local lookup looks next time.
    env.allowLocalModels = true;
    env.localModelPath = modelsDir.endsWith(path.sep) ? modelsDir : modelsDir + path.sep;
    env.allowRemoteModels = allowDownload;
    env.cacheDir = modelsDir;
    env.useFSCache = true;
    env.logLevel = LogLevel.ERROR; // its "Unable to load from local path" warnings are noise here; we log outcomes
    if (!local) this.log.info({ model: id, modelsDir }, "ONNX model not in MODELS_DIR; downloading it");
    // transformers.js reports local file reads as "downloads" too; only real downloads are logged.
    const progress = local ? undefined : progressLogger(this.log, id);
    const t0 = Date.now();
    try {
      const opts = { local_files_only: local || !allowDownload, progress_callback: progress };
      const tokenizer = await AutoTokenizer.from_pretrained(id, opts);
      const model = await AutoModel.from_pretrained(id, {
        ...opts,
        device: "cpu",
        dtype: this.profile.options.quantized === true ? "q8" : "fp32",
      });
      if (this.closed) {
        await model.dispose();
        return false;
      }
      this.tokenizer = tokenizer as unknown as HfTokenizer;
      this.model = model as unknown as HfModel;
    } catch (err) {
      const msg = (err as Error).message;
      const hint = local
        ? `Check that ${this.modelDir} holds a complete export (config.json, tokenizer.json, tokenizer_config.json, ` +
          `onnx/model${this.profile.options.quantized === true ? "_quantized" : ""}.onnx).`
        : `The download failed; check network access to the Hugging Face hub or copy the model into ${this.modelDir}.`;
      return this.fail(`ONNX model ${id} could not be loaded: ${msg}. ${hint}`);
    }
    // One embedding now finds a dimension mismatch at startup (status says so) instead of on
    // every upload later.
    try {
      await this.embedNow(["dimension check"], "query");
    } catch (err) {
      await this.model?.dispose().catch(() => undefined);
      this.model = null;
      this.tokenizer = null;
      return this.fail((err as Error).message);
    }
    if (this.normalize === false) {
      this.log.warn({ profile: this.profile.name }, "profile sets normalize=false; cosine search expects unit vectors");
    }
    this.state = { state: "ready", detail: null };
    this.log.info({ model: id, ms: Date.now() - t0, pooling: this.pooling }, "ONNX embedding model ready");
    return true;
  }

  private fail(detail: string): false {
    this.state = { state: "unavailable", detail };
    this.log.error({ profile: this.profile.name, model: this.profile.model }, detail);
    return false;
  }
}

function hasLocalModel(dir: string): boolean {
  return fs.existsSync(path.join(dir, "config.json")) && fs.existsSync(path.join(dir, "onnx"));
}

/** Logs download progress per file at most every 10 percent, so a 100 MB model gives ~10 lines. */
function progressLogger(log: EmbedLogger, model: string): (p: ProgressInfo) => void {
  const last = new Map<string, number>();
  return (p) => {
    if (p.status === "progress") {
      const step = Math.floor(p.progress / 10) * 10;
      if ((last.get(p.file) ?? -1) < step) {
        last.set(p.file, step);
        log.info({ model, file: p.file, percent: step, bytes: p.loaded, total: p.total }, "downloading model file");
      }
    } else if (p.status === "download") {
      log.info({ model, file: p.file }, "model file download started");
    }
  };
}
