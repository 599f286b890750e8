// Every setting, read once from the environment and validated. docs/reference/configuration.md
// is generated from SETTINGS below (npm run docs:config); every variable loadConfig reads is one.
import path from "node:path";
import fs from "node:fs";

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL: chunks of settled tenants held as in-memory BM25 indexes per process (0: none) */
  pgLexicalCacheChunks: number;
  redisUrl: string | null;
  /** where the originals of documents live (store/open-files.ts) */
  fileStore: FileStoreSetting;
  platformApiKey: string | null;
  smtpUrl: string | null;
  mailFrom: string;
  /** null: chosen at start (embed/choose-profile.ts) */
  embeddingProfile: string | null;
  embeddingProfilesFile: string | null;
  modelsDir: string;
  allowModelDownload: boolean;
  embedWorkers: number;
  crawlRenderJs: boolean;
  crawlAllowPrivateNetworks: boolean;
  /** consecutive crawls that miss a page (404/410, or no longer found) before it is removed */
  crawlRemoveAfterMisses: number;
  /** webhook delivery: delays before each retry (ms), the request timeout, and when to disable */
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookDisableAfterFailures: number;
  /** how often a worker process looks for due source schedules */
  scheduleCheckMs: number;
  chromiumPath: string;
  requireEmailVerification: boolean;
  defaultPlan: string;
  sessionTtlDays: number;
  ingestWorkers: number;
  queueTenantConcurrency: number;
  queuePrefix: string;
  /** BullMQ: how long a running job's lock lasts without renewal before another worker takes it over */
  queueLockMs: number;
  logLevel: string;
  logFormat: "json" | "pretty";
  /** how long a stopping process waits for running jobs before leaving them to be requeued */
  shutdownTimeoutMs: number;
  beirDataDir: string | null;
  rateLimitPerMinute: number;
  rateLimitAnonymousPerMinute: number;
  auditRetentionDays: number;
  /** search log (issue 29): how long events are kept, how often the buffer is written, what counts as a low score */
  analyticsRetentionDays: number;
  analyticsFlushMs: number;
  analyticsLowScore: number;
  /** a quarry-static collection adapts its query model on its own from this many indexed documents (0: never) */
  adaptAutoMinDocuments: number;
  adaptAutoMinChunks: number;
  /** at most one adaptation size check per source in this window (ms) */
  adaptCheckMs: number;
  /** "hnsw": approximate graphs per tenant and source under DATA_DIR/vectors; "exact": sqlite-vec scan */
  vectorIndex: "hnsw" | "exact";
  /** how the HNSW graphs store vectors: f16 (default), f32, or i8 (rescored from the exact vectors) */
  vectorQuantization: "f32" | "f16" | "i8";
  /** HNSW candidate list per graph search (ef), raised to the depth asked for when that is larger */
  vectorEfSearch: number;
}

export class ConfigError extends Error {}

/** FILE_STORE_URL and the S3_* settings, parsed */
export type FileStoreSetting =
  | { kind: "local" }
  | { kind: "postgres" }
  | {
      kind: "s3";
      bucket: string;
      /** "" or ending in "/" */
      prefix: string;
      endpoint: string | null;
      region: string;
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
    };

/** Largest file an upload may carry: a fixed limit, not a setting. The upload route enforces it
 * while streaming (413) and GET /capabilities reports it as max_upload_bytes. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** MAX_UPLOAD_BYTES as messages name it ("50 MB") */
export const MAX_UPLOAD_TEXT = `${MAX_UPLOAD_BYTES / (1024 * 1024)} MB`;

/** HNSW ef per graph search (the store's default too): a greedy walk with fewer candidates stops
 * early inside large, tightly clustered graphs; the recall it buys is in docs/benchmarks.md */
export const DEFAULT_EF_SEARCH = 256;

interface Setting {
  env: string;
  default: string;
  doc: string;
}

/** The documented settings, in the order of docs/reference/configuration.md. */
export const SETTINGS: Setting[] = [
  { env: "PORT", default: "8000", doc: "HTTP port" },
  { env: "HOST", default: "127.0.0.1", doc: "Interface to listen on (0.0.0.0 to expose)" },
  { env: "PUBLIC_URL", default: "http://127.0.0.1:8000", doc: "Base URL used in emailed links; https makes the session cookie Secure" },
  { env: "DATA_DIR", default: "./data", doc: "Where the SQLite database, uploaded files and the mail outbox live" },
  { env: "DATABASE_URL", default: "(unset)", doc: "Unset: SQLite at DATA_DIR/quarry.db. postgres://... selects PostgreSQL with pgvector (scale-out: docs/scale-out.md)" },
  { env: "PG_LEXICAL_CACHE_CHUNKS", default: "200000", doc: "DATABASE_URL set: chunks each API process holds as in-memory BM25 indexes of tenants whose content has not changed for 2 s (searched without the lexical SQL statement; least recently searched tenants dropped first; about 1.1 KB a chunk of 200 words, so some 220 MB at the default). 0 turns it off" },
  { env: "REDIS_URL", default: "(unset)", doc: "Unset: durable job queue in the database. redis://... runs jobs on BullMQ in Redis (scale-out)" },
  { env: "FILE_STORE_URL", default: "local without DATABASE_URL, postgres with it", doc: "Where the originals of documents are kept for reindexing: local (DATA_DIR/files), postgres (in the database, so scale-out processes share no disk) or s3://bucket/prefix (S3-compatible storage; docs/scale-out.md)" },
  { env: "S3_ENDPOINT", default: "(unset: AWS)", doc: "FILE_STORE_URL=s3://...: the S3-compatible endpoint, e.g. http://minio:9000 or https://<account>.r2.cloudflarestorage.com" },
  { env: "S3_REGION", default: "us-east-1", doc: "FILE_STORE_URL=s3://...: the bucket's region (auto for R2)" },
  { env: "S3_ACCESS_KEY_ID", default: "(unset)", doc: "FILE_STORE_URL=s3://...: access key; unset with S3_SECRET_ACCESS_KEY, the AWS SDK's own chain (AWS_* variables, instance role) is used" },
  { env: "S3_SECRET_ACCESS_KEY", default: "(unset)", doc: "FILE_STORE_URL=s3://...: secret key of S3_ACCESS_KEY_ID" },
  { env: "S3_FORCE_PATH_STYLE", default: "true with S3_ENDPOINT", doc: "FILE_STORE_URL=s3://...: address buckets as ENDPOINT/bucket rather than bucket.ENDPOINT (most self-hosted servers need it)" },
  { env: "PLATFORM_API_KEY", default: "(unset)", doc: "Operator key with the platform scope (manages tenants; X-Tenant-Id acts inside one). Unset: no platform access" },
  { env: "SMTP_URL", default: "(unset)", doc: "smtp(s)://user:pass@host:port for outgoing mail. Unset: messages are written to DATA_DIR/outbox/ and logged" },
  { env: "MAIL_FROM", default: "Quarry <no-reply@localhost>", doc: "Sender of account emails" },
  { env: "EMBEDDING_PROFILE", default: "(unset)", doc: "Active embedding profile (GET /embedding-profiles lists them). Unset: use-lite-int8, or default where the store already holds that profile's vectors (deployments made before 2026-11-28)" },
  { env: "EMBEDDING_PROFILES_FILE", default: "(unset)", doc: "JSON file with extra embedding profiles" },
  { env: "MODELS_DIR", default: "DATA_DIR/models", doc: "Where local ONNX models are looked up before any download, and where the use-lite-static profile's token-vector table is built (npm run distill)" },
  { env: "ALLOW_MODEL_DOWNLOAD", default: "false", doc: "Allow downloading ONNX models from the Hugging Face hub on first use" },
  { env: "EMBED_WORKERS", default: "2", doc: "Worker threads that run the local embedding model" },
  { env: "CRAWL_RENDER_JS", default: "true when Chromium is found", doc: "Allow render_js crawls in headless Chromium" },
  { env: "CRAWL_ALLOW_PRIVATE_NETWORKS", default: "false", doc: "Allow crawling private, loopback and link-local addresses (tests, intranets)" },
  { env: "CRAWL_REMOVE_AFTER_MISSES", default: "2", doc: "Consecutive crawls of a source that find a page gone (404/410, or neither linked nor in the sitemap) before its document is removed" },
  { env: "WEBHOOK_RETRY_DELAYS", default: "5,300,1800,7200,18000,36000,36000", doc: "Seconds before each retry of a failed webhook delivery, comma-separated (default: 8 attempts over about 27.6 hours)" },
  { env: "WEBHOOK_TIMEOUT_SECONDS", default: "10", doc: "How long a webhook receiver may take to answer a delivery" },
  { env: "WEBHOOK_DISABLE_AFTER_FAILURES", default: "5", doc: "Consecutive deliveries that failed every attempt before an endpoint is disabled (a 410 Gone disables it at once)" },
  { env: "SCHEDULE_CHECK_SECONDS", default: "30", doc: "How often each worker process starts the syncs of data sources whose schedule is due (one process runs each due time)" },
  { env: "CHROMIUM_PATH", default: "/usr/bin/chromium", doc: "Chromium binary for render_js" },
  { env: "REQUIRE_EMAIL_VERIFICATION", default: "true", doc: "Refuse ingest calls of signed-up workspaces until the owner's email is verified" },
  { env: "DEFAULT_PLAN", default: "free", doc: "Plan of new workspaces: free, pro or enterprise" },
  { env: "SESSION_TTL_DAYS", default: "14", doc: "Console session lifetime" },
  { env: "INGEST_WORKERS", default: "2", doc: "Concurrent ingest jobs in this process" },
  { env: "QUEUE_TENANT_CONCURRENCY", default: "1", doc: "Most jobs of one kind a tenant runs at once while another tenant's jobs wait (a tenant alone uses every worker)" },
  { env: "QUEUE_PREFIX", default: "quarry", doc: "Key prefix of the BullMQ queues in Redis (separates deployments sharing one Redis)" },
  { env: "QUEUE_LOCK_MS", default: "30000", doc: "BullMQ: a running job's lock, renewed while its worker lives; a killed worker's jobs are taken over this long (up to twice) after it died" },
  { env: "LOG_LEVEL", default: "info", doc: "pino log level (fatal, error, warn, info, debug, trace, silent)" },
  { env: "RATE_LIMIT_PER_MINUTE", default: "6000", doc: "Requests a minute per API key or console session (429 with Retry-After beyond); 0 turns rate limiting off" },
  { env: "RATE_LIMIT_ANONYMOUS_PER_MINUTE", default: "300", doc: "Requests a minute per client address without credentials (signup, login, password reset)" },
  { env: "AUDIT_RETENTION_DAYS", default: "365", doc: "How long audit log entries (GET /audit-log) are kept" },
  { env: "ANALYTICS_RETENTION_DAYS", default: "90", doc: "How long search-log events and their clicks (GET /analytics/*) are kept; older ones are deleted daily" },
  { env: "ANALYTICS_FLUSH_MS", default: "1000", doc: "How often the search log's in-memory buffer is written to the database (also written at shutdown)" },
  { env: "ANALYTICS_LOW_SCORE", default: "0.3", doc: "A search whose best hit scores below this (calibrated relevance, 0-1) counts as low-score in the reports and /metrics" },
  {
    env: "ADAPT_AUTO_MIN_DOCUMENTS",
    default: "200",
    doc: "With the quarry-static profile, a collection adapts its model to its own text on its own once it holds this many indexed documents (the whole model when its data sources are its own, its queries otherwise; applied only when its held-out pairs improve); 0 turns the automatic start off",
  },
  {
    env: "ADAPT_AUTO_MIN_CHUNKS",
    default: "2000",
    doc: "A collection also adapts on its own once its indexed documents hold this many chunks (a reference of few long pages); 0 counts documents only",
  },
  {
    env: "ADAPT_CHECK_SECONDS",
    default: "10",
    doc: "How often at most each process counts a source's collections against ADAPT_AUTO_MIN_DOCUMENTS while its documents are being indexed (a check skipped in the window runs at its end)",
  },
  { env: "LOG_FORMAT", default: "json", doc: "json: one JSON object a line with ISO timestamps (log shippers). pretty: coloured lines for people" },
  { env: "SHUTDOWN_TIMEOUT_SECONDS", default: "8", doc: "On SIGTERM/SIGINT, how long running jobs may finish before they are left queued for the next start" },
  { env: "BEIR_DATA_DIR", default: "../shared/datasets if present, else DATA_DIR/datasets", doc: "Local BEIR data sets for GET /industry-benchmarks imports and npm run bench (never downloaded)" },
  { env: "VECTOR_INDEX", default: "hnsw", doc: "Vector search: hnsw (HNSW graphs per tenant and data source, saved under DATA_DIR/vectors) or exact (sqlite-vec scan)" },
  { env: "VECTOR_EF_SEARCH", default: String(DEFAULT_EF_SEARCH), doc: "HNSW candidates per graph search (ef): higher finds more of the exact nearest chunks in large graphs and costs time (docs/benchmarks.md)" },
  { env: "VECTOR_QUANTIZATION", default: "f16", doc: "How the HNSW graphs hold vectors: f16 (half of f32's memory, distances within 1e-4), f32, or i8 (a quarter; candidates rescored from the exact vectors)" },
];

function vectorIndexSetting(env: NodeJS.ProcessEnv): "hnsw" | "exact" {
  const v = str(env, "VECTOR_INDEX") ?? "hnsw";
  if (v !== "hnsw" && v !== "exact") throw new ConfigError(`VECTOR_INDEX must be hnsw or exact; got "${v}".`);
  return v;
}

function vectorQuantization(env: NodeJS.ProcessEnv): "f32" | "f16" | "i8" {
  const v = str(env, "VECTOR_QUANTIZATION") ?? "f16";
  if (v !== "f32" && v !== "f16" && v !== "i8") throw new ConfigError(`VECTOR_QUANTIZATION must be f16, f32 or i8; got "${v}".`);
  return v;
}

function fileStoreSetting(env: NodeJS.ProcessEnv, databaseUrl: string | null): FileStoreSetting {
  const url = str(env, "FILE_STORE_URL") ?? (databaseUrl ? "postgres" : "local");
  if (url === "local") return { kind: "local" };
  if (url === "postgres") {
    if (!databaseUrl) throw new ConfigError("FILE_STORE_URL=postgres keeps the originals in the PostgreSQL store: set DATABASE_URL too, or use FILE_STORE_URL=local.");
    return { kind: "postgres" };
  }
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) throw new ConfigError(`FILE_STORE_URL must be local, postgres or s3://bucket/prefix; got "${url}".`);
  const endpoint = str(env, "S3_ENDPOINT");
  if (endpoint !== null && !/^https?:\/\//.test(endpoint)) throw new ConfigError(`S3_ENDPOINT must be an http:// or https:// URL; got "${endpoint}".`);
  const accessKeyId = str(env, "S3_ACCESS_KEY_ID");
  const secretAccessKey = str(env, "S3_SECRET_ACCESS_KEY");
  if ((accessKeyId === null) !== (secretAccessKey === null)) throw new ConfigError("Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (the AWS SDK's credential chain).");
  const prefix = (m[2] ?? "").replace(/^\/+|\/+$/g, "");
  return {
    kind: "s3",
    bucket: m[1],
    prefix: prefix ? `${prefix}/` : "",
    endpoint,
    region: str(env, "S3_REGION") ?? "us-east-1",
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, "S3_FORCE_PATH_STYLE", endpoint !== null),
  };
}

function webhookRetryDelays(env: NodeJS.ProcessEnv): number[] {
  // Standard Webhooks' suggested schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
  const v = str(env, "WEBHOOK_RETRY_DELAYS") ?? "5,300,1800,7200,18000,36000,36000";
  const parts = v.split(",").map((s) => Number(s.trim()));
  if (parts.length > 20 || parts.some((n) => !Number.isFinite(n) || n < 0 || n > 7 * 86_400)) {
    throw new ConfigError(`WEBHOOK_RETRY_DELAYS must be up to 20 comma-separated seconds from 0 to 604800; got "${v}".`);
  }
  return parts.map((n) => Math.round(n * 1000));
}

function str(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === "" ? null : v.trim();
}

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === null) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${v}".`);
  }
  return n;
}

function fraction(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const v = str(env, name);
  if (v === null) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new ConfigError(`${name} must be a number from 0 to 1; got "${v}".`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const v = str(env, name);
  if (v === null) return dflt;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(`${name} must be true or false; got "${v}".`);
}

function logFormat(env: NodeJS.ProcessEnv): "json" | "pretty" {
  const v = (str(env, "LOG_FORMAT") ?? "json").toLowerCase();
  if (v !== "json" && v !== "pretty") throw new ConfigError(`LOG_FORMAT must be json or pretty; got "${v}".`);
  return v;
}

function queuePrefix(env: NodeJS.ProcessEnv): string {
  const v = str(env, "QUEUE_PREFIX") ?? "quarry";
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(v)) throw new ConfigError(`QUEUE_PREFIX must be 1-64 letters, digits, '_', '.', ':' or '-'; got "${v}".`);
  return v;
}

export const PLANS = ["free", "pro", "enterprise"] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, "PORT", 8000, 0, 65535);
  const host = str(env, "HOST") ?? "127.0.0.1";
  const dataDir = path.resolve(str(env, "DATA_DIR") ?? "./data");
  const databaseUrl = str(env, "DATABASE_URL");
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// (or be unset for SQLite); got "${databaseUrl}".`);
  }
  const redisUrl = str(env, "REDIS_URL");
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss:// (or be unset for the queue in the database); got "${redisUrl}".`);
  }
  const defaultPlan = str(env, "DEFAULT_PLAN") ?? "free";
  if (!(PLANS as readonly string[]).includes(defaultPlan)) {
    throw new ConfigError(`DEFAULT_PLAN must be one of ${PLANS.join(", ")}; got "${defaultPlan}".`);
  }
  const platformApiKey = str(env, "PLATFORM_API_KEY");
  if (platformApiKey !== null && platformApiKey.length < 16) {
    throw new ConfigError("PLATFORM_API_KEY must be at least 16 characters long.");
  }
  const chromiumPath = str(env, "CHROMIUM_PATH") ?? "/usr/bin/chromium";
  return {
    port,
    host,
    publicUrl: (str(env, "PUBLIC_URL") ?? `http://${host}:${port}`).replace(/\/+$/, ""),
    dataDir,
    databaseUrl,
    pgLexicalCacheChunks: int(env, "PG_LEXICAL_CACHE_CHUNKS", 200_000, 0, 100_000_000),
    redisUrl,
    fileStore: fileStoreSetting(env, databaseUrl),
    platformApiKey,
    smtpUrl: str(env, "SMTP_URL"),
    mailFrom: str(env, "MAIL_FROM") ?? "Quarry <no-reply@localhost>",
    embeddingProfile: str(env, "EMBEDDING_PROFILE"),
    embeddingProfilesFile: str(env, "EMBEDDING_PROFILES_FILE"),
    modelsDir: path.resolve(str(env, "MODELS_DIR") ?? path.join(dataDir, "models")),
    allowModelDownload: bool(env, "ALLOW_MODEL_DOWNLOAD", false),
    embedWorkers: int(env, "EMBED_WORKERS", 2, 1, 16),
    crawlRenderJs: bool(env, "CRAWL_RENDER_JS", fs.existsSync(chromiumPath)),
    crawlAllowPrivateNetworks: bool(env, "CRAWL_ALLOW_PRIVATE_NETWORKS", false),
    crawlRemoveAfterMisses: int(env, "CRAWL_REMOVE_AFTER_MISSES", 2, 1, 100),
    webhookRetryDelaysMs: webhookRetryDelays(env),
    webhookTimeoutMs: int(env, "WEBHOOK_TIMEOUT_SECONDS", 10, 1, 120) * 1000,
    webhookDisableAfterFailures: int(env, "WEBHOOK_DISABLE_AFTER_FAILURES", 5, 1, 1000),
    scheduleCheckMs: int(env, "SCHEDULE_CHECK_SECONDS", 30, 1, 3600) * 1000,
    chromiumPath,
    requireEmailVerification: bool(env, "REQUIRE_EMAIL_VERIFICATION", true),
    defaultPlan,
    sessionTtlDays: int(env, "SESSION_TTL_DAYS", 14, 1, 365),
    ingestWorkers: int(env, "INGEST_WORKERS", 2, 1, 32),
    queueTenantConcurrency: int(env, "QUEUE_TENANT_CONCURRENCY", 1, 1, 64),
    queuePrefix: queuePrefix(env),
    queueLockMs: int(env, "QUEUE_LOCK_MS", 30_000, 1_000, 600_000),
    logLevel: str(env, "LOG_LEVEL") ?? "info",
    logFormat: logFormat(env),
    shutdownTimeoutMs: int(env, "SHUTDOWN_TIMEOUT_SECONDS", 8, 0, 3600) * 1000,
    beirDataDir: str(env, "BEIR_DATA_DIR"),
    rateLimitPerMinute: int(env, "RATE_LIMIT_PER_MINUTE", 6000, 0, 10_000_000),
    rateLimitAnonymousPerMinute: int(env, "RATE_LIMIT_ANONYMOUS_PER_MINUTE", 300, 1, 10_000_000),
    auditRetentionDays: int(env, "AUDIT_RETENTION_DAYS", 365, 1, 36_500),
    analyticsRetentionDays: int(env, "ANALYTICS_RETENTION_DAYS", 90, 1, 36_500),
    analyticsFlushMs: int(env, "ANALYTICS_FLUSH_MS", 1000, 10, 60_000),
    analyticsLowScore: fraction(env, "ANALYTICS_LOW_SCORE", 0.3),
    adaptAutoMinDocuments: int(env, "ADAPT_AUTO_MIN_DOCUMENTS", 200, 0, 100_000_000),
    adaptAutoMinChunks: int(env, "ADAPT_AUTO_MIN_CHUNKS", 2000, 0, 1_000_000_000),
    adaptCheckMs: int(env, "ADAPT_CHECK_SECONDS", 10, 1, 3600) * 1000,
    vectorIndex: vectorIndexSetting(env),
    vectorQuantization: vectorQuantization(env),
    vectorEfSearch: int(env, "VECTOR_EF_SEARCH", DEFAULT_EF_SEARCH, 10, 4096),
  };
}
