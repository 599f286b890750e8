// OpenAI-compatible embedding servers: POST {base_url}/embeddings with {model, input: string[]}.
// Works with OpenAI itself and the many servers that copy its API (vLLM, TEI, Ollama, LiteLLM...).
//
// Status: "loading" until a one-word probe answers (which also checks the dimension), then
// "ready"; configuration errors (no API key, 401/403/404, wrong dimension) make it "unavailable"
// for good. A server that is down at startup is "unavailable" too, but calls keep being tried
// and the first success makes it "ready" again, since remote servers come back on their own.
import { EmbedderUnavailableError, EmbeddingError } from "./errors.js";
import { silentLogger, type EmbedLogger } from "./logger.js";
import { l2normalize } from "./vector.js";
import type { Embedder, EmbedderStatus, EmbeddingProfile } from "./types.js";

export interface OpenAiOptions {
  logger?: EmbedLogger;
  /** environment to read the API key from (tests pass their own); default process.env */
  env?: Record<string, string | undefined>;
  /** send a probe request at creation; default true */
  probe?: boolean;
  /** after a failed call, probe again this often until the server answers; default 30 s, 0 = never */
  reprobeMs?: number;
}

interface Settings {
  url: string;
  apiKeyEnv: string | null;
  batchSize: number;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  sendDimensions: boolean;
}

interface EmbeddingsResponse {
  data: { index: number; embedding: number[] }[];
}

/** An HTTP answer that retrying cannot fix (4xx other than 408/429, bad body, wrong dimension). */
class PermanentError extends EmbeddingError {
  constructor(message: string, readonly configProblem: boolean) {
    super(message, false);
  }
}

export class OpenAiEmbedder implements Embedder {
  readonly profile: EmbeddingProfile;
  private readonly log: EmbedLogger;
  private readonly settings: Settings;
  private readonly apiKey: string | null;
  private state: EmbedderStatus;
  private readonly ready: Promise<boolean>;
  /** a configuration problem makes every call fail the same way; remembered so none is sent */
  private fatal: string | null = null;
  private readonly inflight = new Set<AbortController>();
  private closed = false;
  private readonly reprobeMs: number;
  private reprobeTimer: NodeJS.Timeout | null = null;

  constructor(profile: EmbeddingProfile, options: OpenAiOptions = {}) {
    this.profile = profile;
    this.log = options.logger ?? silentLogger;
    const o = profile.options;
    const base = typeof o.base_url === "string" ? o.base_url : "https://api.openai.com/v1";
    this.settings = {
      url: `${base.replace(/\/+$/, "")}/embeddings`,
      apiKeyEnv: o.api_key_env === null ? null : typeof o.api_key_env === "string" ? o.api_key_env : "OPENAI_API_KEY",
      batchSize: positive(o.batch_size, 64),
      timeoutMs: positive(o.timeout_ms, 30_000),
      maxRetries: typeof o.max_retries === "number" && o.max_retries >= 0 ? o.max_retries : 4,
      retryBaseMs: positive(o.retry_base_ms, 500),
      sendDimensions: o.send_dimensions === true,
    };
    this.reprobeMs = options.reprobeMs ?? 30_000;
    const env = options.env ?? process.env;
    const key = this.settings.apiKeyEnv ? env[this.settings.apiKeyEnv] : undefined;
    this.apiKey = key && key.trim() !== "" ? key.trim() : null;

    if (this.settings.apiKeyEnv && !this.apiKey) {
      this.fatal =
        `Embedding profile "${profile.name}" reads its API key from the environment variable ${this.settings.apiKeyEnv}, ` +
        `which is not set. Set it, or set options.api_key_env to null for a server without authentication.`;
      this.state = { state: "unavailable", detail: this.fatal };
      this.log.error({ profile: profile.name }, this.fatal);
      this.ready = Promise.resolve(false);
    } else if (options.probe === false) {
      this.state = { state: "ready", detail: null };
      this.ready = Promise.resolve(true);
    } else {
      this.state = { state: "loading", detail: `Checking the embedding server at ${this.settings.url}.` };
      this.ready = this.probe();
    }
  }

  status(): EmbedderStatus {
    return { ...this.state };
  }

  whenReady(): Promise<boolean> {
    return this.ready;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.embedBatch([this.profile.query_prefix + text]);
    return v;
  }

  /** Batches go out one after another: gentler on rate limits than a burst, and an upload is
   * dominated by server time anyway. */
  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.settings.batchSize) {
      const batch = texts.slice(i, i + this.settings.batchSize).map((t) => this.profile.passage_prefix + t);
      out.push(...(await this.embedBatch(batch)));
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reprobeTimer) clearTimeout(this.reprobeTimer);
    for (const c of this.inflight) c.abort(new EmbedderUnavailableError("The embedder was closed."));
  }

  private scheduleReprobe(): void {
    if (this.reprobeTimer || this.closed || this.reprobeMs <= 0) return;
    this.reprobeTimer = setTimeout(() => {
      this.reprobeTimer = null;
      if (this.state.state === "unavailable" && !this.fatal && !this.closed) void this.probe();
    }, this.reprobeMs);
    this.reprobeTimer.unref(); // never keeps a finished process alive
  }

  private async probe(): Promise<boolean> {
    try {
      await this.embedBatch(["ping"], true);
      this.log.info({ profile: this.profile.name, url: this.settings.url }, "embedding server ready");
      return true;
    } catch {
      return false; // embedBatch has set the state and logged why
    }
  }

  private async embedBatch(input: string[], probing = false): Promise<Float32Array[]> {
    if (this.closed) throw new EmbedderUnavailableError("The embedder was closed.");
    if (this.fatal) throw new EmbedderUnavailableError(this.fatal);
    if (!probing && this.state.state === "loading") await this.ready;
    if (this.fatal) throw new EmbedderUnavailableError(this.fatal);
    try {
      const vectors = await this.requestWithRetries(input);
      if (this.state.state !== "ready") this.state = { state: "ready", detail: null };
      return vectors;
    } catch (err) {
      if (err instanceof PermanentError && err.configProblem) {
        this.fatal = err.message;
        this.state = { state: "unavailable", detail: err.message };
        this.log.error({ profile: this.profile.name }, err.message);
        throw new EmbedderUnavailableError(err.message);
      }
      if (err instanceof EmbeddingError && err.retryable) {
        // The server is unreachable or failing; say so in /health until a call succeeds again.
        // Callers may stop calling while it says so, hence the periodic re-probe.
        this.state = { state: "unavailable", detail: err.message };
        this.log.warn({ profile: this.profile.name, err: err.message }, "embedding server call failed");
        this.scheduleReprobe();
      }
      throw err;
    }
  }

  private async requestWithRetries(input: string[]): Promise<Float32Array[]> {
    let attempt = 0;
    for (;;) {
      try {
        return await this.request(input);
      } catch (err) {
        const e = err instanceof EmbeddingError ? err : new EmbeddingError(String(err), true);
        if (!e.retryable || attempt >= this.settings.maxRetries || this.closed) {
          if (e.retryable && attempt > 0) {
            throw new EmbeddingError(`${e.message} (gave up after ${attempt + 1} attempts)`, true, { cause: e });
          }
          throw e;
        }
        const retryAfter = e instanceof RetryAfterError ? e.retryAfterMs : null;
        // Exponential backoff with jitter; a server's Retry-After wins but is capped at 30 s.
        const backoff = this.settings.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        const wait = Math.min(retryAfter ?? backoff, 30_000);
        this.log.warn({ attempt: attempt + 1, waitMs: Math.round(wait), err: e.message }, "retrying embedding request");
        await sleep(wait);
        attempt++;
      }
    }
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const { url, timeoutMs } = this.settings;
    const body: Record<string, unknown> = { model: this.profile.model, input, encoding_format: "float" };
    if (this.settings.sendDimensions) body.dimensions = this.profile.dimension;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutError()), timeoutMs);
    this.inflight.add(controller);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: controller.signal });
      text = await res.text();
    } catch (err) {
      const reason = controller.signal.reason;
      if (reason instanceof TimeoutError) {
        throw new EmbeddingError(`The embedding server at ${url} did not answer within ${timeoutMs} ms.`, true);
      }
      if (reason instanceof EmbedderUnavailableError) throw reason;
      const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new EmbeddingError(`Cannot reach the embedding server at ${url}: ${why}.`, true);
    } finally {
      clearTimeout(timer);
      this.inflight.delete(controller);
    }

    if (!res.ok) {
      const detail = errorDetail(text);
      const what = `The embedding server at ${url} answered ${res.status}${detail ? `: ${detail}` : ""}`;
      if (res.status === 429 || res.status === 408 || res.status >= 500) {
        throw new RetryAfterError(`${what}.`, parseRetryAfter(res.headers.get("retry-after")));
      }
      if (res.status === 401 || res.status === 403) {
        throw new PermanentError(`${what}. Check the API key in ${this.settings.apiKeyEnv ?? "the profile"}.`, true);
      }
      if (res.status === 404) {
        throw new PermanentError(`${what}. Check options.base_url and the model name "${this.profile.model}".`, true);
      }
      // 400 and friends: most likely this input (too long, empty); other inputs may pass.
      throw new PermanentError(`${what}.`, false);
    }
    return this.parse(text, input.length);
  }

  private parse(text: string, count: number): Float32Array[] {
    const url = this.settings.url;
    let body: EmbeddingsResponse;
    try {
      body = JSON.parse(text) as EmbeddingsResponse;
    } catch {
      throw new PermanentError(`The embedding server at ${url} did not answer with JSON.`, false);
    }
    if (!body || !Array.isArray(body.data) || body.data.length !== count) {
      throw new PermanentError(
        `The embedding server at ${url} returned ${Array.isArray(body?.data) ? body.data.length : "no"} embeddings for ${count} inputs.`,
        false,
      );
    }
    const out: Float32Array[] = new Array(count);
    for (const item of body.data) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= count || out[item.index] || !Array.isArray(item.embedding)) {
        throw new PermanentError(`The embedding server at ${url} returned a malformed data item (index ${String(item.index)}).`, false);
      }
      if (item.embedding.length !== this.profile.dimension) {
        throw new PermanentError(
          `The embedding server at ${url} returned ${item.embedding.length}-dimensional embeddings for model ` +
            `"${this.profile.model}", but profile "${this.profile.name}" declares dimension ${this.profile.dimension}. ` +
            `Fix the profile's dimension (then reindex) or the model name.`,
          true,
        );
      }
      // Servers other than OpenAI do not always normalise; the Embedder contract promises unit length.
      out[item.index] = l2normalize(Float32Array.from(item.embedding));
    }
    return out;
  }
}

class TimeoutError extends Error {}

class RetryAfterError extends EmbeddingError {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message, true);
  }
}

function parseRetryAfter(v: string | null): number | null {
  if (!v) return null;
  const secs = Number(v);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The server's own error message (OpenAI: {error:{message}}), shortened for logs and /health. */
function errorDetail(text: string): string {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown };
    if (typeof j.error === "string") msg = j.error;
    else if (j.error && typeof j.error.message === "string") msg = j.error.message;
    else if (typeof j.detail === "string") msg = j.detail;
  } catch {
    // not JSON: keep the text
  }
  msg = msg.replace(/\s+/g, " ").trim();
  return msg.length > 200 ? `${msg.slice(0, 197)}...` : msg;
}

function positive(v: unknown, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : fallback;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
