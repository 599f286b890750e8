// Running a benchmark suite: every case through the search path users hit, scored and kept as a
// run. Takes the service's dependencies first.
import type { CollectionView, Json } from "../../store/content-types.js";
import type { BenchmarkCaseRow, BenchmarkRunRow, BenchmarkSuiteRow } from "../../store/benchmark-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { evaluateQuery, evaluateRun, latencySummary } from "../ranking-metrics.js";
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { round3, round6, runOut, suiteRow, type BenchmarkRunOut, type BenchmarkServiceDeps, type CaseResult } from "./benchmark-types.js";

/** Relevant ids that are documents of the collection now (another tenant's id never is). */
async function presentIn(deps: Pick<BenchmarkServiceDeps, "store">, tenantId: string, c: CollectionView, ids: Set<string>): Promise<Set<string>> {
  const sources = new Set(c.data_source_ids);
  const present = new Set<string>();
  for (const id of ids) {
    const d = await deps.store.content.getDocument(tenantId, id);
    if (d && sources.has(d.data_source_id)) present.add(id);
  }
  return present;
}

/** Every case through the search, one after the other, with what came back and its scores. */
async function runCases(deps: Pick<BenchmarkServiceDeps, "store" | "search">, p: Principal, k: number, cases: BenchmarkCaseRow[], c: CollectionView) {
  const tenantId = tenantOf(p).id;
  const present = await presentIn(deps, tenantId, c, new Set(cases.flatMap((x) => x.relevant_document_ids)));
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
  return { results, modes };
}

/** The run's metrics: the aggregate scores, latency and the search mode over all cases. */
function runMetrics(cases: BenchmarkCaseRow[], results: CaseResult[], modes: Set<string>, k: number) {
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
  return metrics;
}

async function execute(deps: Pick<BenchmarkServiceDeps, "store" | "search">, p: Principal, suite: BenchmarkSuiteRow, cases: BenchmarkCaseRow[], c: CollectionView) {
  const { results, modes } = await runCases(deps, p, suite.top_k, cases, c);
  return { metrics: runMetrics(cases, results, modes, suite.top_k), results };
}

/**
 * Runs every case now and keeps the run. 429 (and no run) when the quota cannot take all
 * the cases; a run that cannot finish (collection deleted, search error) is kept as failed.
 */
export async function runSuite(deps: BenchmarkServiceDeps, p: Principal, id: string): Promise<BenchmarkRunOut> {
  const tenant = tenantOf(p);
  const suite = await suiteRow(deps, tenant.id, id);
  const cases = (await deps.store.benchmarks.listCases(tenant.id, [id])).get(id) ?? [];
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
  const collection = await deps.store.content.getCollection(tenant.id, suite.collection_id);
  if (!collection) {
    const failed: BenchmarkRunRow = {
      ...run,
      status: "failed",
      error: `The suite's collection '${suite.collection_id}' no longer exists in this workspace. Create a suite for an existing collection.`,
      completed_at: nowIso(),
    };
    await deps.store.benchmarks.createRun(failed);
    await emitRunEnded(deps, suite, failed);
    return runOut(failed);
  }
  await deps.quotas.consumeQueries(tenant, cases.length);
  await deps.store.benchmarks.createRun(run);
  let end: Parameters<typeof deps.store.benchmarks.finishRun>[2];
  try {
    const { metrics, results } = await execute(deps, p, suite, cases, collection);
    end = { status: "completed", metrics, results: results as unknown as Json[], error: null, completed_at: nowIso() };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    end = { status: "failed", metrics: {}, results: [], error: `The run stopped: ${why}`, completed_at: nowIso() };
  }
  await deps.store.benchmarks.finishRun(tenant.id, run.id, end);
  await emitRunEnded(deps, suite, { ...run, ...end });
  return runOut({ ...run, ...end });
}

/** benchmark.completed: a run ended (status completed, or failed with the error), with its metrics. */
async function emitRunEnded(deps: Pick<BenchmarkServiceDeps, "events">, suite: BenchmarkSuiteRow, run: BenchmarkRunRow): Promise<void> {
  const data = { benchmark_id: suite.id, run_id: run.id, collection_id: suite.collection_id, status: run.status, query_count: run.query_count, metrics: run.metrics, error: run.error };
  await deps.events?.emit(run.tenant_id, "benchmark.completed", data, { collectionId: suite.collection_id });
}
