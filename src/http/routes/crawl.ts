import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { CrawlCreate, CrawlOut, CrawlPageOut, SiteCheckOut, SiteCheckRequest } from "../schemas/crawl.js";
import { PAGES_DEFAULT_LIMIT, type CrawlService } from "../../services/crawl/crawls.js";
import { linkNext, pagingQuery } from "../paging.js";
import { needs } from "../route-config.js";
import type { RouteApp } from "../route-app.js";

const JobParams = Type.Object({ job_id: Type.String() });
const tags = ["crawl"];

/** What these routes use, and nothing else of the runtime. */
export interface CrawlRouteDeps {
  crawls: CrawlService;
}

export const crawlRoutes =
  ({ crawls }: CrawlRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerCheck(app, crawls);
    registerStart(app, crawls);
    registerList(app, crawls);
    registerGet(app, crawls);
    registerPages(app, crawls);
    registerCancel(app, crawls);
    registerRetry(app, crawls);
  };

function registerCheck(app: RouteApp, crawls: CrawlService) {
  app.post(
    "/crawl/check",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Check a site before crawling; indexes nothing",
        description: "Fetches a handful of URLs (start page, robots.txt, sitemaps, llms.txt, a Markdown twin) with timeouts. A URL the crawl policy refuses answers 400.",
        body: ref(SiteCheckRequest),
        response: { 200: ref(SiteCheckOut), ...errors(400, 401, 403, 422) },
      },
    },
    async (req) => crawls.check(req.principal!, req.body.url),
  );
}

function registerStart(app: RouteApp, crawls: CrawlService) {
  app.post(
    "/crawl",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Start a crawl",
        description:
          "Creates a website data source when data_source_id is not given (attached to collection_id when given), saves the crawl settings in its configuration and queues the crawl. 400: a URL the crawl policy refuses, or render_js where the deployment does not allow it. 409: the source already has a queued or running crawl. 503: the crawl queue is not running; nothing was started.",
        body: ref(CrawlCreate),
        response: { 202: ref(CrawlOut), ...errors(400, 401, 403, 404, 409, 422, 429, 503) },
      },
    },
    async (req, reply) => reply.status(202).send(await crawls.create(req.principal!, req.body)),
  );
}

function registerList(app: RouteApp, crawls: CrawlService) {
  app.get(
    "/crawl",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "List crawl jobs, newest first (200 at a time)",
        description: "Paged with limit and cursor: the next page is in the Link rel=\"next\" header; no header on the last page.",
        querystring: Type.Object(pagingQuery(200)),
        response: { 200: Type.Array(ref(CrawlOut)), ...errors(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, next } = await crawls.listPage(req.principal!, req.query);
      linkNext(req, reply, next);
      return items;
    },
  );
}

function registerGet(app: RouteApp, crawls: CrawlService) {
  app.get(
    "/crawl/:job_id",
    {
      config: needs("search"),
      schema: { tags, summary: "Get a crawl job", params: JobParams, response: { 200: ref(CrawlOut), ...errors(401, 403, 404) } },
    },
    async (req) => crawls.get(req.principal!, req.params.job_id),
  );
}

function registerPages(app: RouteApp, crawls: CrawlService) {
  app.get(
    "/crawl/:job_id/pages",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Pages of a crawl job: failed ones with the reason, handed-over ones with their indexing state",
        description:
          "status=failed lists each URL the crawl could not fetch (dead link, oversize page, timeout, ...) or could not index, with the reason. Paged: limit and cursor; the next page is in the Link rel=\"next\" header.",
        params: JobParams,
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal("failed"), Type.Literal("pending"), Type.Literal("indexed")])),
          ...pagingQuery(PAGES_DEFAULT_LIMIT),
        }),
        response: { 200: Type.Array(ref(CrawlPageOut)), ...errors(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, next } = await crawls.pages(req.principal!, req.params.job_id, req.query);
      linkNext(req, reply, next);
      return items;
    },
  );
}

function registerCancel(app: RouteApp, crawls: CrawlService) {
  app.post(
    "/crawl/:job_id/cancel",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Cancel a queued or running crawl (indexed pages stay)",
        description: "409 when the crawl is not queued or running.",
        params: JobParams,
        response: { 200: ref(CrawlOut), ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => crawls.cancel(req.principal!, req.params.job_id),
  );
}

function registerRetry(app: RouteApp, crawls: CrawlService) {
  app.post(
    "/crawl/:job_id/retry",
    {
      config: needs("ingest"),
      schema: {
        tags,
        summary: "Resume a failed or cancelled crawl",
        description: "Pages already indexed by the job are skipped, so the crawl resumes with its remaining page budget. 409 when the crawl is not failed or cancelled; 503 when the crawl queue is not running.",
        params: JobParams,
        response: { 202: ref(CrawlOut), ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (req, reply) => reply.status(202).send(await crawls.retry(req.principal!, req.params.job_id)),
  );
}
