// Schemas of the search analytics routes (issue 29): feedback on a logged search, the two reports,
// the logging switch and the report-to-benchmark and report-to-synonym actions.
import { Type } from "@sinclair/typebox";
import { DateTime, Id, Nullable, ref, strictObject } from "./common.js";
import { Synonyms } from "./search-controls.js";

export const SearchFeedbackCreate = strictObject(
  {
    type: Type.Union([Type.Literal("click"), Type.Literal("conversion"), Type.Literal("thumbs_up"), Type.Literal("thumbs_down")], {
      description: "click: the user opened the document; conversion: it led to the outcome you track; thumbs_up/down: an explicit rating.",
    }),
    document_id: Id,
    position: Type.Integer({ minimum: 1, maximum: 1000, description: "1-based rank of the document in the answer the user saw." }),
  },
  { $id: "SearchFeedbackCreate" },
);

export const SearchSeriesPoint = Type.Object(
  {
    start: DateTime,
    searches: Type.Integer(),
    zero_result_rate: Type.Number({ minimum: 0, maximum: 1 }),
    low_score_rate: Type.Number({ minimum: 0, maximum: 1, description: "Share of searches whose best hit scored below ANALYTICS_LOW_SCORE." }),
    p50_ms: Nullable(Type.Integer(), { description: "Median took_ms; null in an interval without searches." }),
    p95_ms: Nullable(Type.Integer()),
  },
  { $id: "SearchSeriesPoint" },
);

export const SearchSeries = Type.Object(
  { data: Type.Array(Type.Ref("SearchSeriesPoint")), interval: Type.String() },
  { $id: "SearchSeries" },
);

export const QueryStat = Type.Object(
  {
    query: Type.String({ description: "Normalised: lower case, trimmed, inner whitespace collapsed." }),
    count: Type.Integer(),
    zero_results: Type.Integer(),
    low_score: Type.Integer(),
    clicks: Type.Integer({ description: "Click events on the query's searches." }),
    ctr: Type.Number({ minimum: 0, maximum: 1, description: "Share of the query's searches with at least one click." }),
    mean_click_position: Nullable(Type.Number(), { description: "Mean 1-based position of the clicks; null without clicks." }),
  },
  { $id: "QueryStat" },
);

export const QueryStats = Type.Object(
  { data: Type.Array(Type.Ref("QueryStat")), next_cursor: Nullable(Type.String(), { description: "Pass as cursor for the next page; null on the last page." }) },
  { $id: "QueryStats" },
);

export const AnalyticsSettings = Type.Object(
  {
    logging: Type.Boolean({ description: "false: this workspace's searches are not logged (answers carry search_id null)." }),
    retention_days: Type.Integer({ description: "How long events are kept (ANALYTICS_RETENTION_DAYS)." }),
  },
  { $id: "AnalyticsSettings" },
);

export const AnalyticsSettingsUpdate = strictObject({ logging: Type.Boolean() }, { $id: "AnalyticsSettingsUpdate" });

export const AnalyticsBenchmarkCasesCreate = strictObject(
  {
    suite_id: Id,
    queries: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 100, description: "Queries as the report shows them." }),
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
  },
  { $id: "AnalyticsBenchmarkCasesCreate" },
);

export const AnalyticsBenchmarkCasesOut = Type.Object(
  {
    suite_id: Type.String(),
    created: Type.Array(
      Type.Object({ id: Type.String(), query: Type.String(), relevant_document_ids: Type.Array(Type.String()), judgment: Type.Literal("implicit") }),
    ),
    skipped: Type.Array(Type.Object({ query: Type.String(), reason: Type.String() })),
  },
  { $id: "AnalyticsBenchmarkCasesOut" },
);

const SynonymQuery = Type.String({ minLength: 1, maxLength: 100, description: "A query as the report shows it (normalised again: case folded, spaces collapsed)." });

export const AnalyticsSynonymsCreate = strictObject(
  {
    collection_id: Id,
    queries: Type.Array(SynonymQuery, { minItems: 1, maxItems: 50, description: "Queries from a report, e.g. the zero-result ones." }),
    synonym_of: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "The term the queries mean: each query becomes a one-way mapping to it. Absent: the queries (two or more) become one group of equivalent terms.",
      }),
    ),
  },
  { $id: "AnalyticsSynonymsCreate" },
);

export const AnalyticsSynonymsOut = Type.Object(
  {
    collection_id: Type.String(),
    added: ref(Synonyms),
    synonyms: ref(Synonyms),
  },
  { $id: "AnalyticsSynonymsOut", description: "What was added, and the collection's whole synonym set now (as GET /collections/{id}/synonyms answers)." },
);
