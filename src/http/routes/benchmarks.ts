// Benchmark suites: their cases, runs and fusion tuning. The public question sets that create
// suites (industry-benchmarks.ts) are registered from here, after the suites' routes.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { BenchmarkRunOut, BenchmarkSuiteCreate, BenchmarkSuiteOut, BenchmarkTuneOut, BenchmarkTuneRequest, TuningJobOut } from "../schemas/benchmarks.js";
import { needs } from "../route-config.js";
import { linkNext, pagingQuery } from "../paging.js";
import type { RouteApp } from "../route-app.js";
import type { BenchmarkService, IndustryBenchmarkService } from "../../evaluation/index.js";
import { registerIndustryBenchmarkRoutes } from "./industry-benchmarks.js";

const SuiteParams = Type.Object({ suite_id: Type.String() });
const TuningParams = Type.Object({ suite_id: Type.String(), tuning_id: Type.String() });
const tags = ["benchmarks"];

/** What these routes use, and nothing else of the runtime. */
export interface BenchmarkRouteDeps {
  benchmarks: BenchmarkService;
  industryBenchmarks: IndustryBenchmarkService;
}

export const benchmarkRoutes =
  ({ benchmarks, industryBenchmarks }: BenchmarkRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerCreate(app, benchmarks);
    registerList(app, benchmarks);
    registerGet(app, benchmarks);
    registerRuns(app, benchmarks);
    registerRun(app, benchmarks);
    registerTune(app, benchmarks);
    registerTunings(app, benchmarks);
    registerDelete(app, benchmarks);
    registerIndustryBenchmarkRoutes(app, { industryBenchmarks });
  };

function registerCreate(app: RouteApp, benchmarks: BenchmarkService) {
  app.post(
    "/benchmarks",
    {
      config: needs("ingest"),
      schema: { tags, summary: "Create a benchmark suite", body: ref(BenchmarkSuiteCreate), response: { 201: ref(BenchmarkSuiteOut), ...errors(401, 403, 404, 422) } },
    },
    async (req, reply) => reply.status(201).send(await benchmarks.create(req.principal!, req.body)),
  );
}

function registerList(app: RouteApp, benchmarks: BenchmarkService) {
  app.get(
    "/benchmarks",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "List suites with their latest scores",
        description:
          "Each suite with its cases, its runs newest first (without per-case results; GET /benchmarks/{suite_id} has them) and `latest_metrics`, the metrics of its newest completed run.",
        response: { 200: Type.Array(ref(BenchmarkSuiteOut)), ...errors(401, 403) },
      },
    },
    async (req) => benchmarks.list(req.principal!),
  );
}

function registerGet(app: RouteApp, benchmarks: BenchmarkService) {
  app.get(
    "/benchmarks/:suite_id",
    {
      config: needs("search"),
      schema: { tags, summary: "Get a suite with its cases and runs (newest first)", params: SuiteParams, response: { 200: ref(BenchmarkSuiteOut), ...errors(401, 403, 404) } },
    },
    async (req) => benchmarks.get(req.principal!, req.params.suite_id),
  );
}

function registerRuns(app: RouteApp, benchmarks: BenchmarkService) {
  app.get(
    "/benchmarks/:suite_id/runs",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "A suite's runs with their per-case results, newest first (50 at a time)",
        description: "Paged with limit and cursor: the next page is in the Link rel=\"next\" header; no header on the last page.",
        params: SuiteParams,
        querystring: Type.Object(pagingQuery(50)),
        response: { 200: Type.Array(ref(BenchmarkRunOut)), ...errors(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, next } = await benchmarks.runs(req.principal!, req.params.suite_id, req.query);
      linkNext(req, reply, next);
      return items;
    },
  );
}

function registerRun(app: RouteApp, benchmarks: BenchmarkService) {
  app.post(
    "/benchmarks/:suite_id/run",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Run every case now",
        description:
          "Sends every case through POST /search's path (one hit per document, the suite's top_k) and keeps the run. " +
          "metrics: k, query_count, hit_rate, recall_at_k, precision_at_k, mrr, ndcg_at_k (binary relevance), latency_ms {mean, p50, p95, max}, " +
          "cases_missing_documents, mode. Each result: case_id, query, returned [{document_id, rank, score, relevant}], relevant_document_ids, " +
          "missing_document_ids, latency_ms, metrics. The run's queries count against the monthly quota (429 when they do not fit). " +
          "A run that cannot finish is kept with status failed and an error.",
        params: SuiteParams,
        response: { 200: ref(BenchmarkRunOut), ...errors(401, 403, 404, 429) },
      },
    },
    async (req) => benchmarks.run(req.principal!, req.params.suite_id),
  );
}

const TUNE_DESCRIPTION =
  "Searches fusion settings (method, lexical/vector weights, score normalisation), BM25 field weights (title, headings, body) and the candidate depth " +
  "with a coordinate search of a few tens of settings, starting from the collection's current setting. Each case's query is embedded and searched once; " +
  "every setting is then ranked in memory. The cases are split deterministically by case id (SHA-256 order): 30% are held out and only check the result. " +
  "Metrics (nDCG@10, recall@10, MRR@10, one hit per document) are reported for the best and the current setting on both parts. " +
  "With apply: true the best setting is written to the collection's settings, but only when it does not lose on the held-out cases (nDCG@10); " +
  "apply.detail says what was done or why not. The suite's cases count against the monthly query quota once, when the request is accepted (429 then). " +
  "A suite of at most 100 cases is tuned in the request (200, about one to two runs of the suite); a larger one, or any with background: true, " +
  "as a job: 202 with the tuning job (queued, cases_total set) and a Location header naming GET /benchmarks/{suite_id}/tunings/{tuning_id}, " +
  "whose progress.cases_done grows while the cases are searched and whose result is the same answer once completed. " +
  "background: false tunes in the request, and is refused with 422 for a suite of more than 300 cases. " +
  "422 when the suite has fewer than 5 cases or its collection no longer exists or has no data sources. The body may be omitted (apply: false).";

function registerTune(app: RouteApp, benchmarks: BenchmarkService) {
  app.post(
    "/benchmarks/:suite_id/tune",
    {
      config: needs("ingest"),
      // no body at all means {} (apply false), as for POST .../run
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
      schema: {
        tags,
        summary: "Tune the collection's fusion settings on the suite's cases",
        description: TUNE_DESCRIPTION,
        params: SuiteParams,
        body: ref(BenchmarkTuneRequest),
        response: { 200: ref(BenchmarkTuneOut), 202: ref(TuningJobOut), ...errors(401, 403, 404, 422, 429, 503) },
      },
    },
    async (req, reply) => {
      const answer = await benchmarks.tune(req.principal!, req.params.suite_id, req.body ?? {});
      if (!answer.background) return reply.status(200).send(answer.result);
      reply.header("location", `/benchmarks/${encodeURIComponent(answer.job.suite_id)}/tunings/${encodeURIComponent(answer.job.id)}`);
      return reply.status(202).send(answer.job);
    },
  );
}

function registerTunings(app: RouteApp, benchmarks: BenchmarkService) {
  app.get(
    "/benchmarks/:suite_id/tunings",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "A suite's tuning jobs, newest first (the 50 newest)",
        params: SuiteParams,
        response: { 200: Type.Array(ref(TuningJobOut)), ...errors(401, 403, 404) },
      },
    },
    async (req) => benchmarks.tunings(req.principal!, req.params.suite_id),
  );
  app.get(
    "/benchmarks/:suite_id/tunings/:tuning_id",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "A tuning job: status, progress and, once completed, the tuning's answer",
        params: TuningParams,
        response: { 200: ref(TuningJobOut), ...errors(401, 403, 404) },
      },
    },
    async (req) => benchmarks.tuning(req.principal!, req.params.suite_id, req.params.tuning_id),
  );
  app.post(
    "/benchmarks/:suite_id/tunings/:tuning_id/cancel",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Cancel a queued or running tuning (the collection is left as it was)",
        description: "A running tuning stops at its next case. 409 when the tuning has already completed, failed or been cancelled.",
        params: TuningParams,
        response: { 200: ref(TuningJobOut), ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => benchmarks.cancelTuning(req.principal!, req.params.suite_id, req.params.tuning_id),
  );
}

function registerDelete(app: RouteApp, benchmarks: BenchmarkService) {
  app.delete(
    "/benchmarks/:suite_id",
    {
      config: needs("ingest"),
      schema: { tags, summary: "Delete a suite with its cases, runs and tunings", params: SuiteParams, response: { 204: Empty, ...errors(401, 403, 404) } },
    },
    async (req, reply) => {
      await benchmarks.remove(req.principal!, req.params.suite_id);
      return reply.status(204).send(null);
    },
  );
}
