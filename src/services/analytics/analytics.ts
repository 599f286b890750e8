// Search analytics (issue 29): feedback on logged searches, the reports, the tenant's logging
// switch, turning report queries into benchmark cases, and retention. The write path of the log
// is analytics-log.ts; what a search records is analytics-search.ts.
import type { Store } from "../../store/types.js";
import type { EventFilter, FeedbackType, SearchOrigin } from "../../store/analytics-types.js";
import { atOf, HOUR } from "../../store/analytics-codec.js";
import { newId, nowIso } from "../../store/ids.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound, ValidationError, type FieldIssue } from "../errors.js";
import type { SearchLog } from "./analytics-log.js";
import type { SynonymService } from "../collections/synonyms.js";
import { synonymWords, type SynonymSet } from "../../search/lexical/synonyms.js";
import { SEARCH_ID_PREFIX } from "./analytics-search.js";
import { normaliseQuery } from "./query-text.js";
import { bucketOffset, INTERVALS, MAX_BUCKETS, mergeQueryCounts, queryStat, series, sortQueries, splitWindow, type Interval, type QuerySort, type QueryStat, type SeriesPoint } from "./analytics-reports.js";

export interface AnalyticsServiceDeps {
  store: Pick<Store, "analytics" | "content" | "benchmarks">;
  log: SearchLog;
  /** the report-to-synonym action writes through the collection's synonyms */
  synonyms: Pick<SynonymService, "add">;
  retentionDays: number;
  lowScore: number;
  /** how often the log is written (ms): feedback on a search this young may wait for its write */
  flushMs: number;
  now?: () => number;
}

export interface ReportWindow {
  collection_id?: string;
  from?: string;
  to?: string;
  include_console?: boolean;
}

const DAY = 86_400_000;
/** default report window: the last 30 days */
const DEFAULT_SPAN = 30 * DAY;
/** most documents judged relevant in one case made from traffic */
const MAX_CLICKED = 10;

function timeOf(v: string | undefined, field: string, dflt: number): number {
  if (v === undefined) return dflt;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new ValidationError([{ type: "value_error", loc: ["query", field], msg: `${field} must be a date-time such as 2026-11-01T00:00:00Z`, input: v }]);
  return t;
}

/** An offset cursor of a sorted report: opaque to clients. */
const encodeOffset = (n: number) => Buffer.from(`o${n}`).toString("base64url");
function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw new ValidationError([{ type: "value_error", loc: ["query", "cursor"], msg: "cursor is not valid; pass next_cursor of the previous page unchanged, or leave it out", input: cursor }]);
  return Number(m[1]);
}

type Deps = AnalyticsServiceDeps & { now: () => number };

/** the tenant's window, with a named collection checked to be the tenant's */
async function filterOf(deps: Deps, p: Principal, w: ReportWindow): Promise<EventFilter> {
  const tenant = tenantOf(p);
  if (w.collection_id !== undefined && !(await deps.store.content.getCollection(tenant.id, w.collection_id))) throw notFound("Collection", w.collection_id);
  const to = timeOf(w.to, "to", deps.now() + 1);
  const from = timeOf(w.from, "from", to - DEFAULT_SPAN);
  if (from >= to) throw new ValidationError([{ type: "value_error", loc: ["query", "from"], msg: "from must be before to", input: w.from ?? null }]);
  const origins: SearchOrigin[] = w.include_console ? ["api", "mcp", "console"] : ["api", "mcp"];
  return { tenant_id: tenant.id, ...(w.collection_id !== undefined ? { collection_id: w.collection_id } : {}), from, to, origins };
}

/** the search event behind a public id, waiting for a young one still on its way to storage (another process's buffer) */
async function searchOf(deps: Deps, tenantId: string, searchId: string) {
  const key = searchId.startsWith(SEARCH_ID_PREFIX) ? searchId.slice(SEARCH_ID_PREFIX.length) : "";
  const at = atOf(key);
  if (Number.isNaN(at)) return null;
  // a search still buffered is written now; one in the batch being written is waited for (a
  // write slower than the deadline below, as on a loaded Citus cluster, must not make it a 404)
  if (deps.log.pending(tenantId, key)) await deps.log.flush();
  else await deps.log.settled();
  const deadline = at + 2 * deps.flushMs + 250;
  for (;;) {
    const s = await deps.store.analytics.findSearch(tenantId, key);
    if (s || deps.now() >= deadline) return s;
    await new Promise((r) => setTimeout(r, Math.min(deps.flushMs, 250)));
  }
}

/**
 * Report queries as cases of a suite: the documents clicked (or converted, or rated up) on the
 * query's searches in the window are its relevant documents, judged implicitly. Queries without
 * such feedback are skipped and named.
 */
async function toBenchmark(deps: Deps, p: Principal, body: ReportWindow & { suite_id: string; queries: string[] }) {
  const tenant = tenantOf(p);
  const suite = await deps.store.benchmarks.getSuite(tenant.id, body.suite_id);
  if (!suite) throw notFound("Benchmark suite", body.suite_id);
  const f = await filterOf(deps, p, { ...body, collection_id: suite.collection_id, from: body.from ?? new Date(deps.now() - deps.retentionDays * DAY).toISOString() });
  const queries = [...new Set(body.queries.map(normaliseQuery).filter((q) => q.length > 0))];
  const clicked = await deps.store.analytics.clickedDocuments(f, queries);
  const at = nowIso();
  const cases = queries.flatMap((query) => {
    const docs = clicked.get(query);
    return docs?.length ? [{ id: newId("bmc"), suite_id: suite.id, query, relevant_document_ids: docs.slice(0, MAX_CLICKED), created_at: at }] : [];
  });
  if (cases.length > 0) await deps.store.analytics.appendImplicitCases(tenant.id, suite.id, cases);
  return {
    suite_id: suite.id,
    created: cases.map((c) => ({ id: c.id, query: c.query, relevant_document_ids: c.relevant_document_ids, judgment: "implicit" as const })),
    skipped: queries.filter((q) => !clicked.get(q)?.length).map((query) => ({ query, reason: "no clicked document in the window" })),
  };
}

export interface SynonymsFromReport {
  collection_id: string;
  queries: string[];
  synonym_of?: string;
}

/**
 * Report queries as synonyms of a collection. With `synonym_of`, each query maps one way to that
 * term (a zero-result "gear box" then also finds "gearbox"); without it, the queries become one
 * group of equivalent terms. Queries are normalised as the report shows them.
 */
async function toSynonyms(deps: Deps, p: Principal, body: SynonymsFromReport) {
  // another workspace's collection is 404 whatever the body holds
  if (!(await deps.store.content.getCollection(tenantOf(p).id, body.collection_id))) throw notFound("Collection", body.collection_id);
  const issues: FieldIssue[] = [];
  const queries = [...new Set(body.queries.map(normaliseQuery))];
  body.queries.forEach((q, i) => {
    if (synonymWords(q).length === 0) issues.push({ type: "synonym_empty", loc: ["body", "queries", i], msg: "has no searchable word; use letters or digits", input: q });
  });
  const target = body.synonym_of === undefined ? undefined : normaliseQuery(body.synonym_of);
  if (target !== undefined && synonymWords(target).length === 0) issues.push({ type: "synonym_empty", loc: ["body", "synonym_of"], msg: "has no searchable word; use letters or digits", input: body.synonym_of });
  const words = new Set(queries.map((q) => synonymWords(q).join(" ")));
  if (target === undefined && words.size < 2) issues.push({ type: "synonym_group_size", loc: ["body", "queries"], msg: "a group needs at least two different queries; or name the term they mean as synonym_of", input: body.queries });
  if (target !== undefined && words.size === 1 && words.has(synonymWords(target).join(" "))) issues.push({ type: "value_error", loc: ["body", "synonym_of"], msg: "synonym_of is the query itself; name a different term", input: body.synonym_of });
  if (issues.length) throw new ValidationError(issues);
  const added: SynonymSet = target === undefined ? { groups: [queries], mappings: {} } : { groups: [], mappings: Object.fromEntries(queries.map((q) => [q, [target]])) };
  const synonyms = await deps.synonyms.add(p, body.collection_id, added);
  return { collection_id: body.collection_id, added, synonyms };
}

export function createAnalyticsService(serviceDeps: AnalyticsServiceDeps) {
  const deps: Deps = { ...serviceDeps, now: serviceDeps.now ?? Date.now };
  const now = deps.now;
  const a = deps.store.analytics;
  let sweeper: NodeJS.Timeout | undefined;

  return {
    async feedback(p: Principal, searchId: string, body: { type: FeedbackType; document_id: string; position: number }): Promise<void> {
      const tenantId = tenantOf(p).id;
      const s = await searchOf(deps, tenantId, searchId);
      const ok = s && (await a.recordFeedback({ tenant_id: tenantId, search_id: s.id, at: now(), ...body }));
      if (!ok) throw notFound("Search", searchId);
    },

    async searches(p: Principal, w: ReportWindow & { interval?: Interval }): Promise<{ data: SeriesPoint[]; interval: Interval }> {
      const f = await filterOf(deps, p, w);
      const interval = w.interval ?? "day";
      const buckets = Math.ceil((f.to - f.from) / INTERVALS[interval]) + 1;
      if (buckets > MAX_BUCKETS) {
        throw new ValidationError([{ type: "value_error", loc: ["query", "interval"], msg: `from..to spans ${buckets} ${interval}s; a report has at most ${MAX_BUCKETS}: narrow the window or choose a longer interval`, input: interval }]);
      }
      const { raw, rolled } = splitWindow(f.from, f.to, HOUR);
      const parts = await Promise.all([
        ...raw.map(([from, to]) => a.buckets({ ...f, from, to }, HOUR, 0, deps.lowScore)),
        ...(rolled ? [a.rolledBuckets({ ...f, from: rolled[0], to: rolled[1] }, INTERVALS[interval], bucketOffset(interval))] : []),
      ]);
      return { data: series(parts.flat(), f.from, f.to, interval), interval };
    },

    async queries(p: Principal, w: ReportWindow & { sort?: QuerySort; limit?: number; cursor?: string }): Promise<{ data: QueryStat[]; next_cursor: string | null }> {
      const f = await filterOf(deps, p, w);
      const offset = decodeOffset(w.cursor);
      const limit = w.limit ?? 20;
      const { raw, rolled } = splitWindow(f.from, f.to, DAY);
      const parts = await Promise.all([
        ...raw.map(([from, to]) => a.queries({ ...f, from, to }, deps.lowScore)),
        ...(rolled ? [a.rolledQueries({ ...f, from: rolled[0], to: rolled[1] })] : []),
      ]);
      const sorted = sortQueries(mergeQueryCounts(parts.flat()).map(queryStat), w.sort ?? "count");
      const data = sorted.slice(offset, offset + limit);
      return { data, next_cursor: offset + limit < sorted.length ? encodeOffset(offset + limit) : null };
    },

    toBenchmark: (p: Principal, body: ReportWindow & { suite_id: string; queries: string[] }) => toBenchmark(deps, p, body),

    toSynonyms: (p: Principal, body: SynonymsFromReport) => toSynonyms(deps, p, body),

    async settings(p: Principal) {
      return { logging: await deps.log.enabled(tenantOf(p).id), retention_days: deps.retentionDays };
    },

    async setSettings(p: Principal, body: { logging: boolean }) {
      await deps.log.setEnabled(tenantOf(p).id, body.logging);
      return { logging: body.logging, retention_days: deps.retentionDays };
    },

    /** writes the buffered events now (tests, the bench; shutdown does it by itself) */
    flush: () => deps.log.flush(),

    /** removes events older than the retention; returns how many searches */
    async prune(): Promise<number> {
      await deps.log.flush();
      return a.prune(now() - deps.retentionDays * DAY);
    },

    /** the retention sweep: now, then daily */
    async start(onError: (err: unknown) => void): Promise<void> {
      const sweep = () => this.prune().catch(onError);
      await sweep();
      sweeper = setInterval(sweep, DAY);
      sweeper.unref();
    },

    /** stops the sweep and writes the log's buffer (graceful shutdown loses no event) */
    async close(): Promise<void> {
      clearInterval(sweeper);
      await deps.log.close();
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
