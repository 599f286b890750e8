// Benchmark suites: a collection plus queries with the documents that should come back. A run
// sends every case through the same search path users hit (services/search.ts, collapsed to one
// hit per document, the suite's top_k), scores the answers with search/metrics.ts and keeps the
// run. The run's queries count against the monthly quota once, all together, before it starts.
import type { Store } from "../store/types.js";
import type { CollectionView, Json } from "../store/content-types.js";
import type { BenchmarkCaseRow, BenchmarkRunRow, BenchmarkSuiteRow } from "../store/benchmark-types.js";
import { newId, nowIso } from "../store/ids.js";
import { evaluateQuery, evaluateRun, latencySummary, type QueryMetrics } from "../search/metrics.js";
import { tenantOf, type Principal } from "./auth.js";
import { notFound, ValidationError, type FieldIssue } from "./errors.js";
import type { QuotaService } from "./quotas.js";
import type { SearchService } from "./search.js";
import { decodeKeyset, page } from "./paging.js";
import { createTuner } from "./tuning.js";

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

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const round3 = (x: number | null) => (x === null ? null : Math.round(x * 1e3) / 1e3);

const caseOut = (c: BenchmarkCaseRow): BenchmarkCaseOut => ({
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

function validate(body: BenchmarkSuiteCreate): void {
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

export function createBenchmarkService(deps: { store: Store; search: SearchService; quotas: QuotaService }) {
  const bench = deps.store.benchmarks;
  const content = deps.store.content;

  const failStale = (tenantId: string) =>
    bench.failStaleRuns(tenantId, new Date(Date.now() - STALE_RUN_MS).toISOString(), INTERRUPTED_RUN_ERROR, nowIso());

  async function suiteRow(tenantId: string, id: string): Promise<BenchmarkSuiteRow> {
    const s = await bench.getSuite(tenantId, id);
    if (!s) throw notFound("Benchmark suite", id);
    return s;
  }

  function suiteOut(s: BenchmarkSuiteRow, cases: BenchmarkCaseRow[], runs: BenchmarkRunRow[], latestCompleted?: BenchmarkRunRow): BenchmarkSuiteOut {
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

  /** Relevant ids that are documents of the collection now (another tenant's id never is). */
  async function presentIn(tenantId: string, c: CollectionView, ids: Set<string>): Promise<Set<string>> {
    const sources = new Set(c.data_source_ids);
    const present = new Set<string>();
    for (const id of ids) {
      const d = await content.getDocument(tenantId, id);
      if (d && sources.has(d.data_source_id)) present.add(id);
    }
    return present;
  }

  async function execute(p: Principal, suite: BenchmarkSuiteRow, cases: BenchmarkCaseRow[], c: CollectionView) {
    const tenantId = tenantOf(p).id;
    const present = await presentIn(tenantId, c, new Set(cases.flatMap((x) => x.relevant_document_ids)));
    const k = suite.top_k;
    const results: CaseResult[] = [];
    const modes = new Set<string>();
    for (const kase of cases) {
      const started = performance.now();
      const res = await deps.search.search(
        p,
        { collection_id: c.id, query: kase.query, top_k: k, collapse_documents: true },
        { countQuery: false }, // counted once for the whole run
      );
      const latency = performance.now() - started;
      modes.add(res.mode);
      const relevant = new Set(kase.relevant_document_ids);
      const ids = res.results.map((h) => h.document_id);
      results.push({
        case_id: kase.id,
        query: kase.query,
        returned: res.results.map((h, i) => ({ document_id: h.document_id, rank: i + 1, score: h.score, relevant: relevant.has(h.document_id) })),
        relevant_document_ids: kase.relevant_document_ids,
        missing_document_ids: kase.relevant_document_ids.filter((id) => !present.has(id)),
        latency_ms: Math.round(latency * 1000) / 1000,
        metrics: evaluateQuery(ids, relevant, k),
      });
    }
    const agg = evaluateRun(
      new Map(results.map((r) => [r.case_id, r.returned.map((x) => x.document_id)])),
      new Map(cases.map((x) => [x.id, x.relevant_document_ids])),
      k,
    );
    const latency = latencySummary(results.map((r) => r.latency_ms));
    const metrics = {
      k,
      query_count: cases.length,
      hit_rate: round6(agg.hit_rate),
      recall_at_k: round6(agg.recall),
      precision_at_k: round6(agg.precision),
      mrr: round6(agg.mrr),
      ndcg_at_k: round6(agg.ndcg),
      latency_ms: { mean: round3(latency.mean), p50: round3(latency.p50), p95: round3(latency.p95), max: round3(latency.max) },
      cases_missing_documents: results.filter((r) => r.missing_document_ids.length > 0).length,
      /** hybrid, or lexical when the embedding model was not available ("mixed" if it changed mid-run) */
      mode: modes.size === 1 ? [...modes][0] : "mixed",
    };
    return { metrics, results };
  }

  return {
    /** POST /benchmarks/{id}/tune: fusion settings searched on the suite's cases (services/tuning.ts) */
    tune: createTuner(deps),

    async create(p: Principal, body: BenchmarkSuiteCreate, origin: Json = {}): Promise<BenchmarkSuiteOut> {
      validate(body);
      const tenant = tenantOf(p);
      if (!(await content.getCollection(tenant.id, body.collection_id))) throw notFound("Collection", body.collection_id);
      const now = nowIso();
      const suite: BenchmarkSuiteRow = {
        id: newId("bms"),
        tenant_id: tenant.id,
        collection_id: body.collection_id,
        name: body.name,
        description: body.description ?? "",
        top_k: body.top_k ?? 10,
        origin,
        created_at: now,
      };
      const cases: BenchmarkCaseRow[] = body.cases.map((c) => ({
        id: newId("bmc"),
        suite_id: suite.id,
        query: c.query,
        relevant_document_ids: [...new Set(c.relevant_document_ids)],
        created_at: now,
      }));
      await bench.createSuite(suite, cases);
      return suiteOut(suite, cases, []);
    },

    /** Every suite with its cases and runs (newest first, without per-case results) and latest scores. */
    async list(p: Principal): Promise<BenchmarkSuiteOut[]> {
      const tenantId = tenantOf(p).id;
      await failStale(tenantId);
      const suites = await bench.listSuites(tenantId);
      const ids = suites.map((s) => s.id);
      const [cases, runs] = await Promise.all([bench.listCases(tenantId, ids), bench.listRuns(tenantId, ids, { withResults: false })]);
      return suites.map((s) => suiteOut(s, cases.get(s.id) ?? [], runs.get(s.id) ?? []));
    },

    async get(p: Principal, id: string): Promise<BenchmarkSuiteOut> {
      const tenantId = tenantOf(p).id;
      const s = await suiteRow(tenantId, id);
      await failStale(tenantId);
      const [cases, runs] = await Promise.all([bench.listCases(tenantId, [id]), bench.listRuns(tenantId, [id], { withResults: true })]);
      return suiteOut(s, cases.get(id) ?? [], runs.get(id) ?? []);
    },

    /** GET /benchmarks/{id}/runs: newest first, `limit` at a time; `next` is the following page's cursor */
    async runs(p: Principal, id: string, o: { limit?: number; cursor?: string }): Promise<{ items: BenchmarkRunOut[]; next: string | null }> {
      const tenantId = tenantOf(p).id;
      await suiteRow(tenantId, id);
      await failStale(tenantId);
      const limit = o.limit ?? 50;
      const rows = await bench.pageRuns(tenantId, id, limit + 1, o.cursor ? decodeKeyset(o.cursor) : undefined);
      const { items, next } = page(rows, limit);
      return { items: items.map(runOut), next };
    },

    /** the stored row, for callers that need `origin` (bench, import) */
    row: (p: Principal, id: string) => suiteRow(tenantOf(p).id, id),

    async remove(p: Principal, id: string): Promise<void> {
      if (!(await bench.deleteSuite(tenantOf(p).id, id))) throw notFound("Benchmark suite", id);
    },

    /**
     * Runs every case now and keeps the run. 429 (and no run) when the quota cannot take all
     * the cases; a run that cannot finish (collection deleted, search error) is kept as failed.
     */
    async run(p: Principal, id: string): Promise<BenchmarkRunOut> {
      const tenant = tenantOf(p);
      const suite = await suiteRow(tenant.id, id);
      const cases = (await bench.listCases(tenant.id, [id])).get(id) ?? [];
      const run: BenchmarkRunRow = {
        id: newId("run"),
        tenant_id: tenant.id,
        suite_id: id,
        status: "running",
        query_count: cases.length,
        top_k: suite.top_k,
        metrics: {},
        results: [],
        error: null,
        created_at: nowIso(),
        completed_at: null,
      };
      const collection = await content.getCollection(tenant.id, suite.collection_id);
      if (!collection) {
        const failed: BenchmarkRunRow = {
          ...run,
          status: "failed",
          error: `The suite's collection '${suite.collection_id}' no longer exists in this workspace. Create a suite for an existing collection.`,
          completed_at: nowIso(),
        };
        await bench.createRun(failed);
        return runOut(failed);
      }
      await deps.quotas.consumeQueries(tenant, cases.length);
      await bench.createRun(run);
      let end: Parameters<typeof bench.finishRun>[2];
      try {
        const { metrics, results } = await execute(p, suite, cases, collection);
        end = { status: "completed", metrics, results: results as unknown as Json[], error: null, completed_at: nowIso() };
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        end = { status: "failed", metrics: {}, results: [], error: `The run stopped: ${why}`, completed_at: nowIso() };
      }
      await bench.finishRun(tenant.id, run.id, end);
      return runOut({ ...run, ...end });
    },
  };
}

export type BenchmarkService = ReturnType<typeof createBenchmarkService>;
