// The OpenAPI entries of the analytics routes (issue 29): operation ids, descriptions and
// examples, kept apart from the other routes' (operations.ts, examples.ts spread them in).
const DOCUMENT = "doc_7d2hq0va4c1e9b3f6a58";
const COLLECTION = "col_3k9x2mqp7r1t8w0z5v4y";
const SUITE = "bench_9a8b7c6d5e4f3a2b1c0d";
export const SEARCH_ID_EXAMPLE = "srch_AZK1NhLAb3xqP0Rz";

const point = { start: "2026-11-23T00:00:00.000Z", searches: 120, zero_result_rate: 0.05, low_score_rate: 0.1, p50_ms: 9, p95_ms: 30 };
const stat = { query: "gearbox oil interval", count: 12, zero_results: 0, low_score: 1, clicks: 3, ctr: 0.25, mean_click_position: 1.67 };
const settings = { logging: true, retention_days: 90 };

export const ANALYTICS_TAG = {
  name: "analytics",
  description:
    "The search log: what people search, what finds nothing, what gets clicked; reports per interval and per query, and turning queries into benchmark cases or synonyms. Logging can be turned off per workspace.",
};

export const ANALYTICS_OPERATIONS = {
  "POST /searches/{search_id}/events": {
    operationId: "createSearchEvent",
    ok: "The feedback is recorded; clicks count in GET /analytics/queries.",
    description:
      "Feedback on one logged search: a click, a conversion, or a thumbs up or down on a document of its answer. Keys with the search scope may send it, so a browser front end can. A search id of another workspace answers 404.",
  },
  "GET /analytics/searches": {
    operationId: "getSearchAnalytics",
    ok: "One point per interval from `from` to `to`, empty intervals included.",
    description: "Search volume, p50/p95 latency (took_ms), zero-result rate and low-score rate per hour, day or week (UTC; weeks start on Monday). Console searches are left out unless include_console=true.",
  },
  "GET /analytics/queries": {
    operationId: "listQueryAnalytics",
    ok: "A page of normalised queries in the order asked for.",
    description:
      "sort=count: most searched first. zero_results / low_score: only queries with such searches, most first. ctr: queries that found something, least clicked first. Pages of `limit`; pass next_cursor as `cursor` for the next one.",
  },
  "GET /analytics/settings": { operationId: "getAnalyticsSettings", ok: "The workspace's logging switch and the retention." },
  "PATCH /analytics/settings": {
    operationId: "updateAnalyticsSettings",
    ok: "The switch as it is now.",
    description: "logging=false stops logging this workspace's searches at once in this process (within 10 seconds in other API processes); logged events stay until retention removes them.",
  },
  "POST /analytics/benchmark-cases": {
    operationId: "createBenchmarkCasesFromAnalytics",
    ok: "Cases appended to the suite; queries without clicked documents are listed as skipped.",
    description:
      "Turns report queries into cases of a suite (of the suite's collection): the documents clicked, converted or rated up on the query's searches in the window (default: the retention period) are judged relevant, marked as an implicit judgment.",
  },
  "POST /analytics/synonyms": {
    operationId: "createSynonymsFromAnalytics",
    ok: "The synonyms added and the collection's whole set; the next search uses them (nothing is reindexed).",
    description:
      "Turns report queries (say, the zero-result ones) into synonyms of a collection. With synonym_of, each query maps one way to that term, so a search for the query also finds it; without, the queries become one group of equivalent terms. Merged into the existing set (GET/PUT /collections/{id}/synonyms): a mapping's values are joined, an identical group is not repeated.",
  },
};

export const ANALYTICS_EXAMPLES: Record<string, unknown> = {
  SearchFeedbackCreate: { type: "click", document_id: DOCUMENT, position: 1 },
  SearchSeriesPoint: point,
  SearchSeries: { data: [point], interval: "day" },
  QueryStat: stat,
  QueryStats: { data: [stat], next_cursor: null },
  AnalyticsSettings: settings,
  AnalyticsSettingsUpdate: { logging: false },
  AnalyticsBenchmarkCasesCreate: { suite_id: SUITE, queries: ["gearbox oil interval", "turbine noise"] },
  AnalyticsBenchmarkCasesOut: {
    suite_id: SUITE,
    created: [{ id: "bmc_0a1b2c3d4e5f60718293", query: "gearbox oil interval", relevant_document_ids: [DOCUMENT], judgment: "implicit" }],
    skipped: [{ query: "turbine noise", reason: "no clicked document in the window" }],
  },
  AnalyticsSynonymsCreate: { collection_id: COLLECTION, queries: ["gear box oil", "gearbox lube"], synonym_of: "gearbox oil" },
  AnalyticsSynonymsOut: {
    collection_id: COLLECTION,
    added: { groups: [], mappings: { "gear box oil": ["gearbox oil"], "gearbox lube": ["gearbox oil"] } },
    synonyms: { groups: [["nacelle", "housing"]], mappings: { "gear box oil": ["gearbox oil"], "gearbox lube": ["gearbox oil"] } },
  },
};

export const ANALYTICS_PARAMETER_EXAMPLES: Record<string, unknown> = {
  search_id: SEARCH_ID_EXAMPLE,
  interval: "day",
  sort: "count",
  from: "2026-11-01T00:00:00Z",
  to: "2026-11-28T00:00:00Z",
};
