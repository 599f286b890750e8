// The "quarry" provider: Quarry's own static embedding model (src/model), trained in this repository
// and shipped as one file under model/. It runs on the calling thread: a query costs a few
// hundredths of a millisecond (tokenize, then one weighted sum of rows), a passage well under a
// millisecond, so there is no worker pool and no warm-up; the file loads once per process.
import fs from "node:fs";
import path from "node:path";
import { readModel, type ModelHeader } from "../model/artifact.js";
import { MODEL_DIR } from "../model/paths.js";
import { StaticEncoder } from "../model/encoder.js";
import { EmbedderUnavailableError } from "./errors.js";
import { silentLogger, type EmbedLogger } from "./logger.js";
import type { Embedder, EmbedderStatus, EmbeddingProfile } from "./types.js";

/** texts embedded between two yields to the event loop, so a large batch never blocks searches for long */
const YIELD_EVERY = 256;

/** The profile's model file: options.file, relative paths read from model/ at the package root. */
export function modelFilePath(profile: EmbeddingProfile): string {
  const file = typeof profile.options.file === "string" ? profile.options.file : `${profile.model}.qsm`;
  return path.isAbsolute(file) ? file : path.join(MODEL_DIR, file);
}

interface LoadedModel {
  /** the file as it was read: a file written again since is read again */
  stamp: string;
  header: ModelHeader;
  encoder: StaticEncoder;
}

/**
 * Models this process has loaded, by file. A model is read-only once loaded (adaptation copies
 * the rows it changes), so every embedder of the same file shares one: reading, checksumming and
 * indexing the 27 MB file took about 250 ms of CPU, paid again by every runtime a process opened
 * (the test suites open hundreds). A process serves one or two profiles, so the map stays small.
 */
const loaded = new Map<string, LoadedModel>();

function loadModel(file: string): LoadedModel & { cached: boolean } {
  const st = fs.statSync(file);
  const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  const hit = loaded.get(file);
  if (hit?.stamp === stamp) return { ...hit, cached: true };
  const { header, parts } = readModel(file);
  const model = { stamp, header, encoder: new StaticEncoder(parts) };
  loaded.set(file, model);
  return { ...model, cached: false };
}

export class QuarryStaticEmbedder implements Embedder {
  readonly profile: EmbeddingProfile;
  private encoderRef: StaticEncoder | null = null;
  private header: ModelHeader | null = null;
  private state: EmbedderStatus;
  private closed = false;

  constructor(profile: EmbeddingProfile, options: { logger?: EmbedLogger } = {}) {
    this.profile = profile;
    const log = options.logger ?? silentLogger;
    const file = modelFilePath(profile);
    try {
      const t0 = performance.now();
      const { header, encoder, cached } = loadModel(file);
      if (encoder.dimension !== profile.dimension) {
        throw new Error(`the model makes ${encoder.dimension}-dimensional vectors but the profile declares ${profile.dimension}`);
      }
      this.encoderRef = encoder;
      this.header = header;
      this.state = { state: "ready", detail: null };
      log.info({ file, model: header.model, ms: Math.round(performance.now() - t0), cached }, "static model loaded");
    } catch (err) {
      const detail = `Embedding profile "${profile.name}" cannot load its model file ${file}: ${(err as Error).message}. Reinstall Quarry or point options.file at a model written by npm run model:train.`;
      this.state = { state: "unavailable", detail };
      log.error({ profile: profile.name }, detail);
    }
  }

  /** The loaded model itself (per-collection query adaptation reads and extends it), null when unavailable. */
  encoder(): StaticEncoder | null {
    return this.closed ? null : this.encoderRef;
  }

  /** The model file's header (name, training provenance, metrics), once loaded. */
  modelHeader(): ModelHeader | null {
    return this.header;
  }

  /** the file's creation date and the first hex digits of its payload checksum, e.g. 2026-11-27.3f2a9c01 */
  modelVersion(): string | null {
    return this.header ? `${this.header.created_at.slice(0, 10)}.${this.header.payload_sha256.slice(0, 8)}` : null;
  }

  status(): EmbedderStatus {
    return { ...this.state };
  }

  whenReady(): Promise<boolean> {
    return Promise.resolve(this.state.state === "ready");
  }

  async embedQuery(text: string): Promise<Float32Array> {
    return this.ready().embed(this.profile.query_prefix + text);
  }

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    const encoder = this.ready();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
      if (this.closed) throw new EmbedderUnavailableError("The embedder was closed.");
      out.push(encoder.embed(this.profile.passage_prefix + texts[i]));
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private ready(): StaticEncoder {
    if (!this.encoderRef || this.closed) throw new EmbedderUnavailableError(this.state.detail ?? "The embedder was closed.");
    return this.encoderRef;
  }
}

/** The model a collection's queries are adapted from (model/query-adapt.ts). */
export interface StaticBaseModel {
  encoder: StaticEncoder;
  /** model id and its file's version, e.g. "quarry-static-v1 2026-11-27.07c511eb" */
  name: string;
  model: string;
  payloadSha256: string;
}

/** The embedder's model when it is Quarry's static model and loaded; null otherwise (nothing to adapt). */
export function staticBaseOf(embedder: Embedder | null): StaticBaseModel | null {
  if (!(embedder instanceof QuarryStaticEmbedder)) return null;
  const encoder = embedder.encoder();
  const header = embedder.modelHeader();
  if (!encoder || !header) return null;
  return { encoder, name: `${header.model} ${embedder.modelVersion()}`, model: header.model, payloadSha256: header.payload_sha256 };
}
