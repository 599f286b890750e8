// Search analytics (issue 29): feedback on a logged search (search scope, so a browser front end
// may send it), the reports, the workspace's logging switch and the report-to-benchmark
// and report-to-synonym actions (admin).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import {
  AnalyticsBenchmarkCasesCreate,
  AnalyticsBenchmarkCasesOut,
  AnalyticsSettings,
  AnalyticsSettingsUpdate,
  AnalyticsSynonymsCreate,
  AnalyticsSynonymsOut,
  QueryStats,
  SearchFeedbackCreate,
  SearchSeries,
} from "../schemas/analytics.js";
import { needs } from "../route-config.js";
import type { AnalyticsService } from "../../services/analytics/analytics.js";

/** What these routes use, and nothing else of the runtime. */
export interface AnalyticsRouteDeps {
  analytics: AnalyticsService;
}

const window = {
  collection_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "One collection; absent: the whole workspace." })),
  from: Type.Optional(Type.String({ format: "date-time", description: "Inclusive; default 30 days before `to`." })),
  to: Type.Optional(Type.String({ format: "date-time", description: "Exclusive; default now." })),
  include_console: Type.Optional(Type.Boolean({ default: false, description: "Include searches made in the console (its playground); excluded by default." })),
};

export const analyticsRoutes =
  ({ analytics }: AnalyticsRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["analytics"];
    app.post(
      "/searches/:search_id/events",
      {
        config: needs("search"),
        schema: {
          tags,
          summary: "Report a click, conversion or rating on a search's answer",
          params: Type.Object({ search_id: Type.String({ maxLength: 200 }) }),
          body: ref(SearchFeedbackCreate),
          response: { 202: Type.Null({ description: "empty body" }), ...errors(401, 403, 404, 422) },
        },
      },
      async (req, reply) => {
        await analytics.feedback(req.principal!, req.params.search_id, req.body);
        return reply.status(202).send(null);
      },
    );
    app.get(
      "/analytics/searches",
      {
        config: needs("admin"),
        schema: {
          tags,
          summary: "Search volume, latency and zero-result and low-score rates per interval",
          querystring: Type.Object({ ...window, interval: Type.Optional(Type.Union([Type.Literal("hour"), Type.Literal("day"), Type.Literal("week")], { default: "day" })) }),
          response: { 200: ref(SearchSeries), ...errors(401, 403, 404, 422) },
        },
      },
      async (req) => analytics.searches(req.principal!, req.query),
    );
    app.get(
      "/analytics/queries",
      {
        config: needs("admin"),
        schema: {
          tags,
          summary: "Top queries, queries that found nothing or only weak hits, and the least clicked",
          querystring: Type.Object({
            ...window,
            sort: Type.Optional(Type.Union([Type.Literal("count"), Type.Literal("zero_results"), Type.Literal("low_score"), Type.Literal("ctr")], { default: "count" })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20 })),
            cursor: Type.Optional(Type.String({ maxLength: 200, description: "next_cursor of the previous page" })),
          }),
          response: { 200: ref(QueryStats), ...errors(401, 403, 404, 422) },
        },
      },
      async (req) => analytics.queries(req.principal!, req.query),
    );
    actionRoutes(app, analytics);
  };

/** the workspace's logging switch and the report actions (benchmark cases, synonyms) */
function actionRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], analytics: AnalyticsService): void {
  const tags = ["analytics"];
  app.get(
    "/analytics/settings",
    { config: needs("admin"), schema: { tags, summary: "Whether this workspace's searches are logged, and for how long", response: { 200: ref(AnalyticsSettings), ...errors(401, 403) } } },
    async (req) => analytics.settings(req.principal!),
  );
  app.patch(
    "/analytics/settings",
    {
      config: needs("admin"),
      schema: { tags, summary: "Turn this workspace's search logging off or on", body: ref(AnalyticsSettingsUpdate), response: { 200: ref(AnalyticsSettings), ...errors(401, 403, 422) } },
    },
    async (req) => analytics.setSettings(req.principal!, req.body),
  );
  app.post(
    "/analytics/benchmark-cases",
    {
      config: needs("admin"),
      schema: {
        tags,
        summary: "Add report queries to a benchmark suite, judged by their clicked documents",
        body: ref(AnalyticsBenchmarkCasesCreate),
        response: { 201: ref(AnalyticsBenchmarkCasesOut), ...errors(401, 403, 404, 422) },
      },
    },
    async (req, reply) => reply.status(201).send(await analytics.toBenchmark(req.principal!, req.body)),
  );
  app.post(
    "/analytics/synonyms",
    {
      config: needs("admin"),
      schema: {
        tags,
        summary: "Add report queries to a collection's synonyms",
        body: ref(AnalyticsSynonymsCreate),
        response: { 201: ref(AnalyticsSynonymsOut), ...errors(401, 403, 404, 422) },
      },
    },
    async (req, reply) => reply.status(201).send(await analytics.toSynonyms(req.principal!, req.body)),
  );
}
