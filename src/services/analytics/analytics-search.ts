// The search service as the API, the console and agents use it: each /search, /retrieve and tool
// search is counted in /metrics (zero results, low score) and logged as one search-log event, and
// the answer carries the event's `search_id` (null when the tenant turned logging off). Benchmark
// runs and tunings use the plain service, so they are never logged.
import type { Counter } from "prom-client";
import type { SearchOrigin, SearchEventRow } from "../../store/analytics-types.js";
import { newSearchKey } from "../../store/analytics-codec.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import type { SearchService } from "../search/search.js";
import type { SearchLog } from "./analytics-log.js";
import { mergeSuggestions } from "./popular-queries.js";
import { normaliseQuery } from "./query-text.js";

/** the public form of a search id: "srch_" and the stored key */
export const SEARCH_ID_PREFIX = "srch_";
/** hits kept per event: enough to see what was shown first, small enough to keep events small */
const TOP_KEPT = 3;
const MAX_FILTER = 512;

export interface LoggedSearchDeps {
  log: SearchLog;
  /** a best hit below this calibrated score makes a "low score" search */
  lowScore: number;
  counters?: { zeroResults: Counter<"mode">; lowScore: Counter<"mode"> };
  /** popular queries of a collection beginning with what was typed (popular-queries.ts), offered by suggest */
  popular?: (tenantId: string, collectionId: string, typed: string, limit: number) => Promise<string[]>;
}


interface Answer {
  query: string;
  took_ms: number;
  mode?: string;
  hits: number;
  top: { document_id: string; score: number }[];
}

function originOf(p: Principal, asked: SearchOrigin | undefined): SearchOrigin {
  return asked ?? (p.authMethod === "session" ? "console" : "api");
}

export function loggedSearch(search: SearchService, deps: LoggedSearchDeps): SearchService {
  const observe = async (p: Principal, kind: SearchEventRow["kind"], req: { collection_id: string; filter?: unknown }, a: Answer, origin?: SearchOrigin) => {
    const mode = a.mode ?? "hybrid";
    const topScore = a.top[0]?.score ?? null;
    if (a.hits === 0) deps.counters?.zeroResults.inc({ mode });
    else if (topScore !== null && topScore < deps.lowScore) deps.counters?.lowScore.inc({ mode });
    const tenant = tenantOf(p);
    if (!(await deps.log.enabled(tenant.id))) return null;
    const at = Date.now();
    const id = newSearchKey(at);
    deps.log.record({
      id,
      tenant_id: tenant.id,
      collection_id: req.collection_id,
      at,
      kind,
      origin: originOf(p, origin),
      query: normaliseQuery(a.query),
      mode,
      filter: req.filter === undefined ? null : JSON.stringify(req.filter).slice(0, MAX_FILTER),
      hits: a.hits,
      top_score: topScore,
      top: a.top.slice(0, TOP_KEPT),
      took_ms: a.took_ms,
      actor: p.key?.id ?? p.sessionId ?? null,
    });
    return SEARCH_ID_PREFIX + id;
  };
  return {
    ...search,
    async search(p, req, opts = {}) {
      const res = await search.search(p, req, opts);
      // in-process callers that do not count the query (the bench) are not traffic either
      if (opts.countQuery === false) return res;
      const top = res.results.map((r) => ({ document_id: r.document_id, score: r.score }));
      const search_id = await observe(p, "search", req, { query: req.query, took_ms: res.took_ms, mode: res.mode, hits: res.total, top }, opts.origin);
      return { ...res, search_id };
    },
    async retrieve(p, req, opts = {}) {
      const res = await search.retrieve(p, req, opts);
      // contexts come in citation order: the best match of each document first, best first
      const matched = res.contexts.filter((c) => !c.expanded);
      const best = new Map<string, number>();
      for (const c of matched) best.set(c.document_id, Math.max(best.get(c.document_id) ?? 0, c.score));
      const top = [...best].map(([document_id, score]) => ({ document_id, score })).sort((x, y) => y.score - x.score);
      const search_id = await observe(p, "retrieve", req, { query: req.query, took_ms: res.took_ms, mode: res.mode, hits: matched.length, top }, opts.origin);
      return { ...res, search_id };
    },
    async suggest(p, collectionId, q, limit) {
      // the collection is checked (404 outside the tenant) by the plain suggest, before the log is read
      const words = await search.suggest(p, collectionId, q, limit);
      if (!deps.popular) return words;
      const popular = await deps.popular(tenantOf(p).id, collectionId, q, limit);
      return { suggestions: mergeSuggestions(popular, words.suggestions, limit) };
    },
  };
}
