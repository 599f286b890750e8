// The benchmark suite API: create, list, get, the run history and delete. Each operation takes
// the service's dependencies first; running a suite is in benchmark-runs.ts.
import type { Json } from "../../store/content-types.js";
import type { BenchmarkCaseRow, BenchmarkSuiteRow } from "../../store/benchmark-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { notFound } from "../../services/errors.js";
import { decodeKeyset, page } from "../../services/paging.js";
import { failStaleRuns, runOut, suiteOut, suiteRow, validateSuite, type BenchmarkRunOut, type BenchmarkServiceDeps, type BenchmarkSuiteCreate, type BenchmarkSuiteOut } from "./benchmark-types.js";

type Deps = Pick<BenchmarkServiceDeps, "store">;

export async function createSuite(deps: Deps, p: Principal, body: BenchmarkSuiteCreate, origin: Json = {}): Promise<BenchmarkSuiteOut> {
  validateSuite(body);
  const tenant = tenantOf(p);
  if (!(await deps.store.content.getCollection(tenant.id, body.collection_id))) throw notFound("Collection", body.collection_id);
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
  await deps.store.benchmarks.createSuite(suite, cases);
  return suiteOut(suite, cases, []);
}

/** Every suite with its cases and runs (newest first, without per-case results) and latest scores. */
export async function listSuites(deps: Deps, p: Principal): Promise<BenchmarkSuiteOut[]> {
  const tenantId = tenantOf(p).id;
  await failStaleRuns(deps, tenantId);
  const suites = await deps.store.benchmarks.listSuites(tenantId);
  const ids = suites.map((s) => s.id);
  const [cases, runs] = await Promise.all([deps.store.benchmarks.listCases(tenantId, ids), deps.store.benchmarks.listRuns(tenantId, ids, { withResults: false })]);
  return suites.map((s) => suiteOut(s, cases.get(s.id) ?? [], runs.get(s.id) ?? []));
}

export async function getSuite(deps: Deps, p: Principal, id: string): Promise<BenchmarkSuiteOut> {
  const tenantId = tenantOf(p).id;
  const s = await suiteRow(deps, tenantId, id);
  await failStaleRuns(deps, tenantId);
  const [cases, runs] = await Promise.all([deps.store.benchmarks.listCases(tenantId, [id]), deps.store.benchmarks.listRuns(tenantId, [id], { withResults: true })]);
  return suiteOut(s, cases.get(id) ?? [], runs.get(id) ?? []);
}

/** GET /benchmarks/{id}/runs: newest first, `limit` at a time; `next` is the following page's cursor */
export async function listSuiteRuns(deps: Deps, p: Principal, id: string, o: { limit?: number; cursor?: string }): Promise<{ items: BenchmarkRunOut[]; next: string | null }> {
  const tenantId = tenantOf(p).id;
  await suiteRow(deps, tenantId, id);
  await failStaleRuns(deps, tenantId);
  const limit = o.limit ?? 50;
  const rows = await deps.store.benchmarks.pageRuns(tenantId, id, limit + 1, o.cursor ? decodeKeyset(o.cursor) : undefined);
  const { items, next } = page(rows, limit);
  return { items: items.map(runOut), next };
}

export async function removeSuite(deps: Deps, p: Principal, id: string): Promise<void> {
  if (!(await deps.store.benchmarks.deleteSuite(tenantOf(p).id, id))) throw notFound("Benchmark suite", id);
}
