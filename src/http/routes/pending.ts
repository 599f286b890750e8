// Endpoints of the contract whose feature has not landed yet. They are registered with their
// final schemas (so /openapi.json is complete and validation already answers 422) and answer 501
// with a detail. Each entry moves to its own route file when its feature lands.
import type { FastifyPluginAsync } from "fastify";
import { Type, type TSchema } from "@sinclair/typebox";
import type { Scope } from "../../store/types.js";
import { Empty, errors, ref } from "../schemas/common.js";
import { notImplemented } from "../../services/errors.js";
import * as C from "../schemas/content.js";
import * as S from "../schemas/search.js";
import * as K from "../schemas/crawl.js";
import * as B from "../schemas/benchmarks.js";
import { AnyObject } from "../schemas/identity.js";

interface Pending {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  scope: Scope | null;
  tag: string;
  summary: string;
  body?: TSchema;
  querystring?: TSchema;
  status: number;
  response: TSchema;
  feature: string;
}

export const PENDING: Pending[] = [
  // crawling
  { method: "POST", url: "/crawl/check", scope: "ingest", tag: "crawl", summary: "Check a site before crawling; indexes nothing", body: ref(K.SiteCheckRequest), status: 200, response: ref(K.SiteCheckOut), feature: "crawl" },
  { method: "POST", url: "/crawl", scope: "ingest", tag: "crawl", summary: "Start a crawl", body: ref(K.CrawlCreate), status: 202, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "GET", url: "/crawl", scope: "search", tag: "crawl", summary: "List crawl jobs", status: 200, response: Type.Array(ref(K.CrawlOut)), feature: "crawl" },
  { method: "GET", url: "/crawl/:job_id", scope: "search", tag: "crawl", summary: "Get a crawl job", status: 200, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "POST", url: "/crawl/:job_id/cancel", scope: "ingest", tag: "crawl", summary: "Cancel a running crawl (indexed pages stay)", status: 200, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "POST", url: "/crawl/:job_id/retry", scope: "ingest", tag: "crawl", summary: "Resume a failed or cancelled crawl", status: 202, response: ref(K.CrawlOut), feature: "crawl" },
  // benchmarks
  { method: "POST", url: "/benchmarks", scope: "ingest", tag: "benchmarks", summary: "Create a benchmark suite", body: ref(B.BenchmarkSuiteCreate), status: 201, response: ref(B.BenchmarkSuiteOut), feature: "benchmarks" },
  { method: "GET", url: "/benchmarks", scope: "search", tag: "benchmarks", summary: "List suites with their latest scores", status: 200, response: Type.Array(ref(B.BenchmarkSuiteOut)), feature: "benchmarks" },
  { method: "GET", url: "/benchmarks/:suite_id", scope: "search", tag: "benchmarks", summary: "Get a suite with its cases and runs", status: 200, response: ref(B.BenchmarkSuiteOut), feature: "benchmarks" },
  { method: "POST", url: "/benchmarks/:suite_id/run", scope: "ingest", tag: "benchmarks", summary: "Run every case now", status: 200, response: ref(B.BenchmarkRunOut), feature: "benchmarks" },
  { method: "DELETE", url: "/benchmarks/:suite_id", scope: "ingest", tag: "benchmarks", summary: "Delete a suite", status: 204, response: Empty, feature: "benchmarks" },
  { method: "GET", url: "/industry-benchmarks", scope: "search", tag: "benchmarks", summary: "Ready-made public question sets", status: 200, response: Type.Array(AnyObject), feature: "benchmarks" },
];

export function pendingRoutes(): FastifyPluginAsync {
  return async (app) => {
    for (const p of PENDING) {
      const params = [...p.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
      app.route({
        method: p.method,
        url: p.url,
        config: { scope: p.scope },
        schema: {
          tags: [p.tag],
          summary: p.summary,
          ...(p.body ? { body: p.body } : {}),
          ...(p.querystring ? { querystring: p.querystring } : {}),
          ...(params.length ? { params: Type.Object(Object.fromEntries(params.map((n) => [n, Type.String()]))) } : {}),
          response: { [p.status]: p.response, ...errors(401, 403, 404, 422, 501) },
        },
        handler: async () => {
          throw notImplemented(`${p.method} ${p.url} is part of the ${p.feature} feature, which is not available in this build yet.`);
        },
      });
    }
  };
}

