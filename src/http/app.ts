// Builds the Fastify app: plugins in a fixed order (external -> app -> routes), shared schemas,
// the auth hook over every route, error mapping and the OpenAPI document.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import cookie from "@fastify/cookie";
import multipart from "@fastify/multipart";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Runtime } from "../runtime.js";
import "./route-config.js";
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from "./errors.js";
import { refuseNonUtf8Bodies } from "./charset.js";
import { registerRateLimits, registerSecurityHeaders } from "./protection.js";
import { SHARED_SCHEMAS } from "./schemas/index.js";
import { useLazySchemas } from "./lazy-schemas.js";
import { SESSION_COOKIE } from "./session-cookie.js";
import { registerOpenApi } from "./swagger.js";
import { systemRoutes } from "./routes/system.js";
import type { SystemFacts } from "../services/system.js";
import { tenantRoutes } from "./routes/tenants.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { authRoutes } from "./routes/auth.js";
import { collectionRoutes } from "./routes/collections.js";
import { synonymRoutes } from "./routes/collection-synonyms.js";
import { adaptationRoutes } from "./routes/collection-adaptation.js";
import { dataSourceRoutes } from "./routes/data-sources.js";
import { documentRoutes } from "./routes/documents.js";
import { searchRoutes } from "./routes/search.js";
import { crawlRoutes } from "./routes/crawl.js";
import { benchmarkRoutes } from "./routes/benchmarks.js";
import { auditRoutes } from "./routes/audit.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { scheduleRoutes } from "./routes/schedules.js";
import { analyticsRoutes } from "./routes/analytics.js";
import { agentRoutes } from "./mcp/routes.js";
import { consoleRoutes, defaultConsoleDir } from "./console.js";

export type App = FastifyInstance;


export interface AppOptions {
  /** the built web console (index.html + assets/); default console/dist of this checkout */
  consoleDir?: string;
}

export async function buildApp(rt: Runtime, opts: AppOptions = {}): Promise<App> {
  const app = createServer(rt);
  await registerPlugins(app, rt);
  await registerOpenApi(app, { publicUrl: rt.config.publicUrl });
  registerErrorHandling(app);
  refuseNonUtf8Bodies(app);
  countRequests(app, rt);
  authenticateRequests(app, rt);
  app.get("/openapi.json", { config: { scope: null }, schema: { hide: true } }, async () => app.swagger());
  await registerRoutes(app, rt);
  // last: the console answers only its own paths, so no API path can be shadowed by it
  await app.register(consoleRoutes({ dir: opts.consoleDir ?? defaultConsoleDir() }));
  return app;
}

/** The Fastify instance with the shared schemas and the validators that report the contract's 422s. */
function createServer(rt: Runtime) {
  const app = Fastify({
    loggerInstance: rt.log as unknown as FastifyBaseLogger,
    bodyLimit: 4 * 1024 * 1024,
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: 300 },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  useLazySchemas(app, SHARED_SCHEMAS);
  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  return app;
}

type TypedApp = ReturnType<typeof createServer>;

/** Cookies, security headers, rate limits and multipart bodies, before any route. */
async function registerPlugins(app: TypedApp, rt: Runtime) {
  await app.register(cookie);
  await registerSecurityHeaders(app);
  await registerRateLimits(app, {
    perMinute: rt.config.rateLimitPerMinute,
    anonymousPerMinute: rt.config.rateLimitAnonymousPerMinute,
    redisUrl: rt.config.redisUrl,
    prefix: rt.config.queuePrefix,
  });
  await app.register(multipart, { throwFileSizeLimit: true });
}

/** Request rate and latency by route template (never the raw URL: ids would explode the labels). */
function countRequests(app: TypedApp, rt: Runtime) {
  app.addHook("onResponse", async (req, reply) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? "unmatched", status: String(reply.statusCode) };
    rt.metrics.httpRequests.inc(labels);
    rt.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}

/** Every route that declares a scope gets the caller's principal, or a 401/403 before its handler runs. */
function authenticateRequests(app: TypedApp, rt: Runtime) {
  app.decorateRequest("principal", null);
  app.addHook("onRequest", async (req) => {
    const scope = req.routeOptions.config?.scope;
    if (scope === undefined || scope === null) return;
    const principal = await rt.auth.authenticate({
      authorization: req.headers.authorization,
      sessionToken: req.cookies?.[SESSION_COOKIE],
      tenantHeader: typeof req.headers["x-tenant-id"] === "string" ? req.headers["x-tenant-id"] : undefined,
      tenantAdmittedByRoute: req.routeOptions.config?.tenantAdmittedByRoute === true,
    });
    rt.auth.requireScope(principal, scope, { unverifiedOk: req.routeOptions.config?.unverifiedOk === true });
    req.principal = principal;
  });
}

/** The API's route plugins, in the order of the OpenAPI document. */
async function registerRoutes(app: TypedApp, rt: Runtime) {
  // each route plugin gets the few services it uses, never the whole runtime
  await app.register(systemRoutes({ system: systemFacts(rt), metrics: rt.metrics, accounts: rt.accounts, quotas: rt.quotas }));
  await app.register(tenantRoutes({ tenants: rt.tenants }));
  await app.register(apiKeyRoutes({ apiKeys: rt.apiKeys }));
  await app.register(authRoutes({ accounts: rt.accounts, publicUrl: rt.config.publicUrl }));
  await app.register(collectionRoutes({ collections: rt.collections }));
  await app.register(synonymRoutes({ synonyms: rt.synonyms }));
  await app.register(adaptationRoutes({ adapter: rt.adapter }));
  await app.register(dataSourceRoutes({ sources: rt.sources, documents: rt.documents }));
  await app.register(documentRoutes({ documents: rt.documents, tempPath: () => rt.files.tempPath() }));
  await app.register(searchRoutes({ search: rt.search }));
  await app.register(crawlRoutes({ crawls: rt.crawls }));
  await app.register(benchmarkRoutes({ benchmarks: rt.benchmarks, industryBenchmarks: rt.industryBenchmarks }));
  await app.register(auditRoutes({ audit: rt.audit }));
  await app.register(webhookRoutes({ webhooks: rt.webhooks }));
  await app.register(scheduleRoutes({ schedules: rt.schedules }));
  await app.register(analyticsRoutes({ analytics: rt.analytics }));
  await app.register(
    agentRoutes({
      collections: rt.collections,
      sources: rt.sources,
      documents: rt.documents,
      search: rt.search,
      crawls: rt.crawls,
      auth: rt.auth,
      publicUrl: rt.config.publicUrl,
    }),
  );
}

function systemFacts(rt: Runtime): SystemFacts {
  return {
    store: rt.store,
    config: rt.config,
    limits: rt.limits,
    profiles: rt.profiles,
    activeProfile: rt.activeProfile,
    embedderStatus: () => rt.embedderStatus(),
    embedderVersion: () => rt.embedderVersion(),
    extraHealthChecks: () => rt.extraHealthChecks(),
    vectorHealth: () => rt.vectorHealth(),
  };
}
