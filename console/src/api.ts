// The console talks to the public API only, with the session cookie (same origin).
// Errors keep the contract's shapes: 422 carries field issues, every other error a sentence.

export interface FieldIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  /** 422 issues, when the API named fields */
  readonly issues: FieldIssue[];

  constructor(status: number, message: string, issues: FieldIssue[] = []) {
    super(message);
    this.status = status;
    this.issues = issues;
  }

  /** field name -> message, for the fields of a form (loc ["body", "email"] -> "email") */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const i of this.issues) {
      const field = i.loc.filter((p) => p !== "body" && p !== "query" && p !== "path").join(".");
      if (field && !out[field]) out[field] = sentence(i.msg);
    }
    return out;
  }
}

const sentence = (s: string) => (s.length ? s[0].toUpperCase() + s.slice(1) : s);

async function errorOf(res: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // not JSON (a proxy's error page): fall back to the status line
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (Array.isArray(detail)) {
    const issues = detail as FieldIssue[];
    const msg = issues.map((i) => `${i.loc.slice(1).join(".") || "request"}: ${i.msg}`).join("; ");
    return new ApiError(res.status, msg || "The request was refused.", issues);
  }
  if (typeof detail === "string") return new ApiError(res.status, detail);
  return new ApiError(res.status, `The server answered ${res.status} ${res.statusText}.`);
}

/** dispatched on window when a request answers 401: the session is gone */
export const SIGNED_OUT = "quarry:signed-out";

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "The server could not be reached. Check your connection and try again.");
  }
  if (!res.ok) {
    // the session ended (expired, logged out elsewhere, password reset): back to the login screen
    if (res.status === 401 && !path.startsWith("/auth/")) window.dispatchEvent(new Event(SIGNED_OUT));
    throw await errorOf(res);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One file to POST /documents/upload (a request per file, so each gets its own outcome). */
export async function uploadFile(sourceId: string, file: File): Promise<DocumentOut[]> {
  const form = new FormData();
  form.append("data_source_id", sourceId);
  form.append("files", file, file.name);
  let res: Response;
  try {
    res = await fetch("/documents/upload", { method: "POST", credentials: "same-origin", body: form });
  } catch {
    throw new ApiError(0, "The upload was interrupted. Check your connection and try again.");
  }
  if (!res.ok) {
    if (res.status === 401) window.dispatchEvent(new Event(SIGNED_OUT));
    throw await errorOf(res);
  }
  return (await res.json()) as DocumentOut[];
}

// --- the contract's resources (only the fields the console reads) -------------------------------

export interface Tenant {
  id: string;
  name: string;
  slug: string;
  created_at: string;
}

export interface User {
  id: string;
  email: string;
  email_verified: boolean;
}

export interface Usage {
  period: string;
  plan?: string;
  sources_used: number;
  documents_used: number;
  queries_used: number;
  sources_limit: number | null;
  documents_limit: number | null;
  queries_limit: number | null;
}

export interface Me {
  tenant: Tenant;
  scopes: string[];
  user: User | null;
  role: string | null;
  plan: string;
  auth_method: string;
  usage: Usage | null;
}

export interface Account {
  user: User;
  tenant: Tenant;
  role: string;
  scopes: string[];
  plan: string;
}

export interface Collection {
  id: string;
  name: string;
  description: string;
  created_at: string;
  document_count?: number;
  indexed_count?: number;
  data_source_count?: number;
}

export interface DataSource {
  id: string;
  name: string;
  source_type: string;
  status: string;
  collection_ids?: string[];
  configuration?: Record<string, unknown>;
  last_synced_at?: string | null;
  document_count?: number;
  indexed_count?: number;
  created_at: string;
}

export interface DocumentOut {
  id: string;
  data_source_id: string;
  title: string;
  source: string;
  status: string;
  error?: string | null;
  created_at: string;
  size_bytes?: number | null;
  chunk_count?: number;
}

export interface SearchHit {
  document_id: string;
  chunk_id?: string | null;
  title: string;
  snippet: string;
  score: number;
  source: string;
  heading_path?: string[];
  highlights?: string[];
}

export interface SearchResponse {
  query: string;
  took_ms: number;
  total: number;
  results: SearchHit[];
}

export interface RetrievedContext {
  id: string;
  document_id: string;
  title: string;
  source: string;
  position: number;
  heading_path?: string[];
  text: string;
  score: number;
  expanded?: boolean;
  citation: number;
}

export interface RetrieveResponse {
  query: string;
  took_ms: number;
  contexts: RetrievedContext[];
  documents: { document_id: string; title: string; source: string; best_score: number; chunks: number }[];
  token_estimate: number;
  text?: string | null;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status?: string;
  created_at: string;
  expires_at?: string | null;
  revoked_at?: string | null;
  last_used_at?: string | null;
}

export interface ApiKeyCreated extends ApiKey {
  key: string;
}

export interface Capabilities {
  max_upload_bytes: number;
  file_types: string[];
  render_js?: boolean;
  max_page_limit?: number;
}

export interface Chunk {
  id: string;
  document_id: string;
  position: number;
  heading_path: string[];
  text: string;
  token_count: number;
  embedded: boolean;
}

export interface ChunkList {
  document_id: string;
  total: number;
  chunks: Chunk[];
}

export interface CrawlJob {
  id: string;
  data_source_id: string;
  url: string;
  /** queued, running, completed, failed or cancelled */
  status: string;
  pages_crawled: number;
  page_limit: number;
  max_depth: number;
  error?: string | null;
  created_at: string;
  started_at?: string | null;
  finished_at?: string | null;
  pages_failed?: number;
  pages_indexed?: number;
  pages_pending?: number;
  render_js?: boolean;
  include_paths?: string[];
}

export interface CrawlPage {
  url: string;
  status: string;
  document_id: string | null;
  reason: string | null;
  at: string;
}

export interface SiteCheckItem {
  name: string;
  /** pass, warn, fail or info */
  status: string;
  detail: string;
}

export interface SiteCheck {
  url: string;
  final_url: string | null;
  reachable: boolean;
  status_code: number | null;
  can_crawl: boolean;
  blocked_reason: string | null;
  robots_found: boolean;
  robots_allowed: boolean;
  crawl_delay: number | null;
  sitemap_found: boolean;
  sitemap_page_count: number;
  llms_txt_found: boolean;
  llms_txt_page_count: number;
  markdown_twin: boolean;
  needs_js: boolean;
  scope: string | null;
  estimated_pages: number | null;
  suggested_page_limit: number;
  suggested_depth: number;
  checks: SiteCheckItem[];
  elapsed_ms: number;
}

export interface BenchmarkCase {
  id: string;
  query: string;
  relevant_document_ids: string[];
  created_at: string;
}

export interface BenchmarkMetrics {
  k?: number;
  query_count?: number;
  hit_rate?: number;
  recall_at_k?: number;
  precision_at_k?: number;
  mrr?: number;
  ndcg_at_k?: number;
  latency_ms?: { mean: number | null; p50: number | null; p95: number | null; max: number | null };
  cases_missing_documents?: number;
  mode?: string;
}

export interface BenchmarkCaseResult {
  case_id: string;
  query: string;
  returned: { document_id: string; rank: number; score: number; relevant: boolean }[];
  relevant_document_ids: string[];
  missing_document_ids: string[];
  latency_ms: number;
}

export interface BenchmarkRun {
  id: string;
  /** running, completed or failed */
  status: string;
  query_count: number;
  top_k: number;
  metrics: BenchmarkMetrics;
  results: BenchmarkCaseResult[];
  created_at: string;
  error?: string | null;
  completed_at?: string | null;
}

export interface BenchmarkSuite {
  id: string;
  collection_id: string;
  name: string;
  description: string;
  top_k: number;
  created_at: string;
  cases: BenchmarkCase[];
  /** newest first */
  runs: BenchmarkRun[];
  latest_metrics?: BenchmarkMetrics | null;
}

export interface IndustryBenchmark {
  name: string;
  title: string;
  description: string;
  domain: string;
  licence: string;
  size: { documents: number | null; queries: number | null };
  split: string;
  published_bm25_ndcg_at_10: number | null;
  available_locally: boolean;
  local_path: string;
  download: { automatic: boolean; detail: string };
  homepage: string | null;
}

export interface IndustryImport {
  dataset: string;
  status: string;
  collection_id: string;
  data_source_id: string;
  suite_id: string | null;
  documents: number;
  cases: number;
}
