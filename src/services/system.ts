// Deployment-level facts: health of each dependency, capabilities, embedding profiles. The
// functions take the few facts they read (SystemFacts), not the Runtime, so runtime.ts can build
// the facts without this module importing it back.
import { VERSION } from "../version.js";
import type { EmbeddingProfile, EmbedderStatus } from "../embed/types.js";
import { MAX_UPLOAD_BYTES, type Config } from "../config.js";
import type { Store } from "../store/types.js";
import type { VectorIndexStatus } from "../store/content-types.js";
import { ocrAvailable } from "../ingest/parse/ocr.js";

export interface CheckResult {
  status: "up" | "down" | "degraded";
  detail: string | null;
}

export interface VectorHealth extends VectorIndexStatus {
  /** chunks lexically searchable but still waiting for a vector (all tenants) */
  chunks_pending_vectors: number;
}

/** What GET /health, /readyz, /capabilities and /embedding-profile(s) read; a Runtime is one. */
export interface SystemFacts {
  store: Pick<Store, "kind" | "ping">;
  config: Pick<Config, "crawlRenderJs">;
  limits: { pageSizeLimitBytes: number; maxPageLimit: number; fileTypes: string[] };
  profiles: EmbeddingProfile[];
  activeProfile: EmbeddingProfile;
  embedderStatus(): EmbedderStatus;
  /** the active model's version (Embedder.modelVersion), null when unknown */
  embedderVersion(): string | null;
  /** queue, index and model checks (the database is checked here) */
  extraHealthChecks(): Promise<Record<string, CheckResult>>;
  vectorHealth(): Promise<VectorHealth>;
}

async function check(fn: () => Promise<string | null>): Promise<CheckResult> {
  try {
    return { status: "up", detail: await fn() };
  } catch (err) {
    return { status: "down", detail: err instanceof Error ? err.message : String(err) };
  }
}

/** 200 only when API, database, queue and index are up; the model does not fail health, because
 * search keeps answering lexically without it, but a model that is not up makes the status
 * `degraded` (still 200). */
export async function healthReport(rt: SystemFacts) {
  const checks: Record<string, CheckResult> = {
    api: { status: "up", detail: null },
    database: await check(async () => {
      await rt.store.ping();
      return rt.store.kind;
    }),
    ...(await rt.extraHealthChecks()),
  };
  const required = ["api", "database", "queue", "index"];
  const ok = required.every((k) => checks[k]?.status === "up");
  const status = !ok ? "down" : Object.values(checks).every((c) => c.status === "up") ? "ok" : "degraded";
  const vectors = await rt.vectorHealth().catch(() => null);
  return { status, version: VERSION, checks, ...(vectors ? { vectors } : {}) };
}

/**
 * GET /readyz: whether this process should receive traffic. Not ready (with the reasons) while the
 * database does not answer, the queue is not running or the model is not ready (loading, or
 * unavailable): a rolling deploy must not move traffic to a process that could only answer
 * lexically. /health stays 200 "degraded" in that case, since search still answers.
 */
export async function readiness(rt: SystemFacts): Promise<{ ready: boolean; reasons: string[]; checks: Record<string, CheckResult> }> {
  const report = await healthReport(rt);
  const reasons: string[] = [];
  for (const name of ["database", "queue", "index"]) {
    const c = report.checks[name];
    if (c?.status !== "up") reasons.push(`${name}: ${c?.detail ?? "not up"}`);
  }
  const model = rt.embedderStatus();
  if (model.state !== "ready") reasons.push(`model: ${model.state === "loading" ? `${rt.activeProfile.name} is still loading` : (model.detail ?? `${rt.activeProfile.name} is unavailable`)}`);
  return { ready: reasons.length === 0, reasons, checks: report.checks };
}

export function profileOut(rt: Pick<SystemFacts, "activeProfile" | "embedderStatus">, p: EmbeddingProfile) {
  const active = p.name === rt.activeProfile.name;
  const status = active ? rt.embedderStatus() : null;
  return {
    name: p.name,
    provider: p.provider,
    model: p.model,
    dimension: p.dimension,
    max_input_tokens: p.max_input_tokens,
    chunk_size_tokens: p.chunk_size_tokens,
    chunk_overlap_tokens: p.chunk_overlap_tokens,
    query_prefix: p.query_prefix,
    passage_prefix: p.passage_prefix,
    modalities: p.modalities,
    description: p.description,
    active,
    index_name: p.index_name,
    ...(status ? { status: status.state, status_detail: status.detail } : {}),
  };
}

export function capabilities(rt: SystemFacts) {
  return {
    connectors: ["upload", "website"],
    render_js: rt.config.crawlRenderJs,
    max_upload_bytes: MAX_UPLOAD_BYTES,
    page_size_limit_bytes: rt.limits.pageSizeLimitBytes,
    max_page_limit: rt.limits.maxPageLimit,
    file_types: rt.limits.fileTypes,
    embedding_profile: rt.activeProfile.name,
    embedding_model: rt.activeProfile.model,
    embedding_model_version: rt.embedderVersion(),
    /** scanned PDFs are read with OCR (tesseract-ocr and poppler-utils found on this server) */
    ocr: ocrAvailable(),
  };
}
