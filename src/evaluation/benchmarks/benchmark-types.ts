// Shared shapes of the benchmark operations: the API's types, the contract's limits, the row ->
// output mappings and the suite validation that benchmark-suites.ts and benchmark-runs.ts use.
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { CollectionCatalog, DocumentCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import type { BenchmarkCaseRow, BenchmarkRunRow, BenchmarkSuiteRow } from "../../store/benchmark-types.js";
import { nowIso } from "../../store/ids.js";
import type { QueryMetrics } from "../ranking-metrics.js";
import { notFound, ValidationError, type FieldIssue } from "../../services/errors.js";
import type { QuotaService } from "../../services/tenants/quotas.js";
import type { SearchService } from "../../services/search/search.js";
import type { JobQueue } from "../../jobs/types.js";
import type { WebhookEmitter } from "../../services/webhooks/webhooks.js";
import type { AdaptationReport } from "../adaptation/adapt-run.js";

export interface BenchmarkServiceDeps {
  store: Pick<Store, "benchmarks" | "tenants"> & { content: CollectionCatalog & DocumentCatalog };
  search: SearchService;
  quotas: QuotaService;
  log: Logger;
  /** the tune queue (tunings in the background); a getter because its handler is this service */
  tuneQueue: () => Pick<JobQueue, "available" | "enqueue" | "cancel">;
  /** webhook events (benchmark.completed, tuning.completed); none in tests that leave it out */
  events?: WebhookEmitter;
  /** the query-model adaptation a tuning runs with adapt_model: true (evaluation/adaptation/); absent, it answers 422 */
  adapt?: (tenantId: string, collectionId: string, body: { apply?: boolean }) => Promise<AdaptationReport>;
}

export interface BenchmarkCaseIn {
  query: string;
  relevant_document_ids: string[];
}

export interface BenchmarkSuiteCreate {
  name: string;
  description?: string;
  collection_id: string;
  top_k?: number;
  cases: BenchmarkCaseIn[];
}

export interface BenchmarkCaseOut {
  id: string;
  query: string;
  relevant_document_ids: string[];
  created_at: string;
}

export interface BenchmarkRunOut {
  id: string;
  status: string;
  query_count: number;
  top_k: number;
  metrics: Json;
  results: Json[];
  created_at: string;
  error: string | null;
  completed_at: string | null;
}

export interface BenchmarkSuiteOut {
  id: string;
  collection_id: string;
  name: string;
  description: string;
  top_k: number;
  created_at: string;
  cases: BenchmarkCaseOut[];
  runs: BenchmarkRunOut[];
  /** metrics of the newest completed run, null before the first one */
  latest_metrics: Json | null;
}

/** Per-case entry of a run's `results`. */
export interface CaseResult {
  case_id: string;
  query: string;
  returned: { document_id: string; rank: number; score: number; relevant: boolean }[];
  relevant_document_ids: string[];
  /** relevant ids that are no longer documents of the collection */
  missing_document_ids: string[];
  latency_ms: number;
  metrics: QueryMetrics;
}

// Limits of the contract, checked again here for callers that do not come through HTTP (CLI import).
export const SUITE_LIMITS = { maxCases: 500, maxQueryLength: 2000, maxTopK: 50, maxName: 200, maxDescription: 2000 } as const;

export const INTERRUPTED_RUN_ERROR = "The run did not finish (the service stopped while it was in progress). Run the suite again.";

// A run takes seconds (500 cases at tens of ms each). One still `running` after this long belongs
// to a process that stopped; it is marked failed when the suite is next read. Doing it on read,
// not at start-up, keeps a second process (CLI, another API instance) from failing live runs.
const STALE_RUN_MS = 30 * 60_000;

export const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
export const round3 = (x: number | null) => (x === null ? null : Math.round(x * 1e3) / 1e3);

export const caseOut = (c: BenchmarkCaseRow): BenchmarkCaseOut => ({
  id: c.id,
  query: c.query,
  relevant_document_ids: c.relevant_document_ids,
  created_at: c.created_at,
});

export const runOut = (r: BenchmarkRunRow): BenchmarkRunOut => ({
  id: r.id,
  status: r.status,
  query_count: r.query_count,
  top_k: r.top_k,
  metrics: r.metrics,
  results: r.results,
  created_at: r.created_at,
  error: r.error,
  completed_at: r.completed_at,
});

export function validateSuite(body: BenchmarkSuiteCreate): void {
  const issues: FieldIssue[] = [];
  const issue = (loc: (string | number)[], msg: string, input: unknown) => issues.push({ type: "value_error", loc: ["body", ...loc], msg, input });
  if (body.name.length < 1 || body.name.length > SUITE_LIMITS.maxName) issue(["name"], `name must have 1 to ${SUITE_LIMITS.maxName} characters`, body.name);
  if ((body.description ?? "").length > SUITE_LIMITS.maxDescription) issue(["description"], `description may have at most ${SUITE_LIMITS.maxDescription} characters`, null);
  const k = body.top_k ?? 10;
  if (!Number.isInteger(k) || k < 1 || k > SUITE_LIMITS.maxTopK) issue(["top_k"], `top_k must be an integer from 1 to ${SUITE_LIMITS.maxTopK}`, k);
  if (body.cases.length < 1 || body.cases.length > SUITE_LIMITS.maxCases) issue(["cases"], `a suite has 1 to ${SUITE_LIMITS.maxCases} cases`, body.cases.length);
  body.cases.forEach((c, i) => {
    if (c.query.length < 1 || c.query.length > SUITE_LIMITS.maxQueryLength) issue(["cases", i, "query"], `query must have 1 to ${SUITE_LIMITS.maxQueryLength} characters`, c.query.slice(0, 100));
    if (c.relevant_document_ids.length < 1) issue(["cases", i, "relevant_document_ids"], "name at least one relevant document id", c.relevant_document_ids);
  });
  if (issues.length) throw new ValidationError(issues);
}

export const failStaleRuns = (deps: Pick<BenchmarkServiceDeps, "store">, tenantId: string) =>
  deps.store.benchmarks.failStaleRuns(tenantId, new Date(Date.now() - STALE_RUN_MS).toISOString(), INTERRUPTED_RUN_ERROR, nowIso());

/** The tenant's suite, or 404. */
export async function suiteRow(deps: Pick<BenchmarkServiceDeps, "store">, tenantId: string, id: string): Promise<BenchmarkSuiteRow> {
  const s = await deps.store.benchmarks.getSuite(tenantId, id);
  if (!s) throw notFound("Benchmark suite", id);
  return s;
}

export function suiteOut(s: BenchmarkSuiteRow, cases: BenchmarkCaseRow[], runs: BenchmarkRunRow[], latestCompleted?: BenchmarkRunRow): BenchmarkSuiteOut {
  const latest = latestCompleted ?? runs.find((r) => r.status === "completed");
  return {
    id: s.id,
    collection_id: s.collection_id,
    name: s.name,
    description: s.description,
    top_k: s.top_k,
    created_at: s.created_at,
    cases: cases.map(caseOut),
    runs: runs.map(runOut),
    latest_metrics: latest ? latest.metrics : null,
  };
}
