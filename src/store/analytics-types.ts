// Storage contract of search analytics (issue 29): one small row per logged search, feedback
// (clicks and ratings) on those searches, and each tenant's logging switch. Rows follow the tenant
// row on deletion (ON DELETE CASCADE), and every read filters by the tenant in the query itself.
// Times are epoch milliseconds: compact, and bucketed by arithmetic in both stores.

export type SearchKind = "search" | "retrieve";
/** where a search came from: the HTTP API, an MCP/tool call, or the console (its playground) */
export type SearchOrigin = "api" | "mcp" | "console";
export type FeedbackType = "click" | "conversion" | "thumbs_up" | "thumbs_down";

export interface SearchEventRow {
  /** the search_id without its "srch_" prefix */
  id: string;
  tenant_id: string;
  collection_id: string;
  /** epoch ms */
  at: number;
  kind: SearchKind;
  origin: SearchOrigin;
  /** normalised: trimmed, lower case, inner whitespace collapsed */
  query: string;
  mode: string;
  /** the filter as sent (JSON text), null without one */
  filter: string | null;
  /** results found (before top_k) */
  hits: number;
  /** the best hit's calibrated score, null without hits */
  top_score: number | null;
  /** the first few hits' document ids and scores, best first */
  top: { document_id: string; score: number }[];
  took_ms: number;
  /** key id or session id; null for in-process callers */
  actor: string | null;
}

export interface FeedbackRow {
  tenant_id: string;
  search_id: string;
  at: number;
  type: FeedbackType;
  document_id: string;
  /** 1-based rank of the document in the answer */
  position: number;
}

/** What the reports select: one tenant, optionally one collection, a time window, which origins. */
export interface EventFilter {
  tenant_id: string;
  collection_id?: string;
  /** epoch ms, inclusive */
  from: number;
  /** epoch ms, exclusive */
  to: number;
  origins: SearchOrigin[];
}

/** Latency histogram of one time bucket: exact percentiles are read from it. */
export interface BucketCounts {
  /** bucket start, epoch ms */
  start: number;
  took_ms: number;
  searches: number;
  zero_results: number;
  low_score: number;
}

export interface QueryCounts {
  query: string;
  count: number;
  zero_results: number;
  low_score: number;
  /** click events on this query's searches */
  clicks: number;
  /** searches with at least one click */
  clicked_searches: number;
  /** sum of the clicked positions */
  position_sum: number;
}

/** A query that found results often enough to be offered as a completion (GET /collections/{id}/suggest). */
export interface PopularQuery {
  query: string;
  /** searches of it that found at least one result */
  found: number;
}

/** Which queries count as popular: how many searches found results, on how many distinct days. */
export interface PopularRule {
  /** the normalised text the query starts with */
  prefix: string;
  minFound: number;
  minDays: number;
  limit: number;
}

export interface ImplicitCase {
  id: string;
  suite_id: string;
  query: string;
  relevant_document_ids: string[];
  created_at: string;
}

export interface AnalyticsStore {
  /**
   * writes a batch and adds it to the rollups (hourly latency histogram, daily per-query counts;
   * `lowScore` decides their low-score counts); rows of tenants that no longer exist are dropped
   */
  recordSearches(rows: SearchEventRow[], lowScore: number): Promise<void>;
  /** false (nothing written) when the search is not in this tenant */
  recordFeedback(row: FeedbackRow): Promise<boolean>;
  findSearch(tenantId: string, id: string): Promise<{ id: string; collection_id: string; query: string } | null>;
  /** per (bucket, took_ms): counts of the window; buckets of `interval` ms starting at multiples of it plus `offset` */
  buckets(f: EventFilter, interval: number, offset: number, lowScore: number): Promise<BucketCounts[]>;
  /** per normalised query: counts of the window */
  queries(f: EventFilter, lowScore: number): Promise<QueryCounts[]>;
  /** as buckets(), from the hourly rollup: `from` and `to` are whole hours, `interval` and `offset` too */
  rolledBuckets(f: EventFilter, interval: number, offset: number): Promise<BucketCounts[]>;
  /** as queries(), from the daily rollup: `from` and `to` are whole days (UTC) */
  rolledQueries(f: EventFilter): Promise<QueryCounts[]>;
  /**
   * queries of the window (whole UTC days from the daily rollup) that begin with the prefix and
   * found results at least `minFound` times on at least `minDays` days; most found first, then by text
   */
  popularQueries(f: EventFilter, rule: PopularRule): Promise<PopularQuery[]>;
  /** documents clicked (click or conversion or thumbs_up) on the searches of these queries, most often first */
  clickedDocuments(f: EventFilter, queries: string[]): Promise<Map<string, string[]>>;
  /** appends cases judged implicitly to a suite (after its existing cases) */
  appendImplicitCases(tenantId: string, suiteId: string, cases: ImplicitCase[]): Promise<void>;
  /** the tenant's logging switch; true unless turned off */
  loggingEnabled(tenantId: string): Promise<boolean>;
  setLogging(tenantId: string, enabled: boolean): Promise<void>;
  /** removes searches and feedback older than `before` (epoch ms); returns how many searches */
  prune(before: number): Promise<number>;
}
