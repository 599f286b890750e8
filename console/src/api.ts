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

// Response shapes are the generated client's (clients/typescript, from the OpenAPI document), so
// the console cannot drift from the API it calls.
import type { components } from "../../clients/typescript/src/schema.js";
type S = components["schemas"];

export type Tenant = S["Tenant"];

export type User = S["User"];

export type Usage = S["UsageOut"];

export type Me = S["MeOut"];

export type Account = S["AccountOut"];

export type Collection = S["CollectionOut"];

export type DataSource = S["DataSourceOut"];

export type DocumentOut = S["DocumentOut"];

export type SearchHit = S["SearchHit"];

export type SearchResponse = S["SearchResponse"];

export type RetrievedContext = S["RetrievedContext"];

export type RetrieveResponse = S["RetrieveResponse"];

export type ApiKey = S["ApiKeyOut"];

export type ApiKeyCreated = S["ApiKeyCreated"];

export type Capabilities = S["CapabilitiesOut"];

export type Chunk = S["ChunkOut"];

export type ChunkList = S["ChunkList"];

export type CrawlJob = S["CrawlOut"];

export type CrawlPage = S["CrawlPageOut"];

export type SiteCheckItem = S["SiteCheckItem"];

export type SiteCheck = S["SiteCheckOut"];

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

// the OpenAPI document types a run's metrics and per-case results as open objects; their shape here
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

export type IndustryBenchmark = S["IndustryBenchmarkOut"];

export type TuneOut = S["BenchmarkTuneOut"];

export type TuningJob = S["TuningJobOut"];

export type IndustryImport = S["IndustryBenchmarkImportOut"];

export type Webhook = S["WebhookOut"];

export type WebhookCreated = S["WebhookCreated"];

export type WebhookDelivery = S["WebhookDeliveryOut"];
