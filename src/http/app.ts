// Builds the Fastify app: plugins in a fixed order (external -> app -> routes), shared schemas,
// the auth hook over every route, error mapping and the OpenAPI document.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import cookie from "@fastify/cookie";
import multipart from "@fastify/multipart";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { TSchema } from "@sinclair/typebox";
import type { Runtime } from "../runtime.js";
import { VERSION } from "../version.js";
import "./route-config.js";
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from "./errors.js";
import { createValidators } from "./validation.js";
import { refuseNonUtf8Bodies } from "./charset.js";
import { registerRateLimits, registerSecurityHeaders } from "./protection.js";
import { SHARED_SCHEMAS } from "./schemas/index.js";
import { SESSION_COOKIE } from "./session-cookie.js";
import { systemRoutes } from "./routes/system.js";
import type { SystemFacts } from "../services/system.js";
import { tenantRoutes } from "./routes/tenants.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { authRoutes } from "./routes/auth.js";
import { collectionRoutes } from "./routes/collections.js";
import { dataSourceRoutes } from "./routes/data-sources.js";
import { documentRoutes } from "./routes/documents.js";
import { searchRoutes } from "./routes/search.js";
import { crawlRoutes } from "./routes/crawl.js";
import { benchmarkRoutes } from "./routes/benchmarks.js";
import { auditRoutes } from "./routes/audit.js";
import { agentRoutes } from "./mcp/routes.js";
import { decorateOpenApi } from "./openapi/document.js";
import { consoleRoutes, defaultConsoleDir } from "./console.js";

export type App = FastifyInstance;


export interface AppOptions {
  /** the built web console (index.html + assets/); default console/dist of this checkout */
  consoleDir?: string;
}

export async function buildApp(rt: Runtime, opts: AppOptions = {}): Promise<App> {
  const app = Fastify({
    loggerInstance: rt.log as unknown as FastifyBaseLogger,
    bodyLimit: 4 * 1024 * 1024,
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: 300 },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const validators = createValidators(SHARED_SCHEMAS);
  app.setValidatorCompiler(({ schema, httpPart }) => validators.compile(schema as TSchema, httpPart));
  for (const s of SHARED_SCHEMAS) app.addSchema(s);

  await app.register(cookie);
  await registerSecurityHeaders(app);
  await registerRateLimits(app, { perMinute: rt.config.rateLimitPerMinute, anonymousPerMinute: rt.config.rateLimitAnonymousPerMinute });
  await app.register(multipart, { throwFileSizeLimit: true });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Quarry search service API",
        version: VERSION,
        description:
          "Multi-tenant hybrid search (BM25 + embeddings): POST /search for people, POST /retrieve for language models. Authenticate with `Authorization: Bearer <API key>` (or the console session cookie); each operation names its minimum scope (search < ingest < admin < platform). Agents: MCP server at /mcp (Streamable HTTP), tool definitions at /openai-tools.json.",
      },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "API key: Authorization: Bearer <key>" },
          session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "Console session" },
        },
      },
    },
    transformObject: (documentObject) =>
      "openapiObject" in documentObject ? decorateOpenApi(documentObject.openapiObject, { publicUrl: rt.config.publicUrl }) : documentObject.swaggerObject,
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const scope = route.config?.scope;
      if (!schema || scope === undefined) return { schema, url };
      const s = { ...(schema as Record<string, unknown>) };
      if (scope === null) {
        s.security = [];
      } else {
        s.security = [{ bearer: [] }, { session: [] }];
        s["x-required-scope"] = scope;
        s.description = `${s.description ? `${String(s.description)}\n\n` : ""}Required scope: \`${scope}\`.`;
      }
      return { schema: s as typeof schema, url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    theme: { title: "Quarry API — Swagger UI" },
    // the served document is /openapi.json (the same object as /docs/json)
    uiConfig: { docExpansion: "list", deepLinking: true, urls: [{ url: "/openapi.json", name: `Quarry API ${VERSION}` }] },
  });

  registerErrorHandling(app);
  refuseNonUtf8Bodies(app);

  // request rate and latency by route template (never the raw URL: ids would explode the labels)
  app.addHook("onResponse", async (req, reply) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? "unmatched", status: String(reply.statusCode) };
    rt.metrics.httpRequests.inc(labels);
    rt.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });

  app.decorateRequest("principal", null);
  app.addHook("onRequest", async (req) => {
    const scope = req.routeOptions.config?.scope;
    if (scope === undefined || scope === null) return;
    const principal = await rt.auth.authenticate({
      authorization: req.headers.authorization,
      sessionToken: req.cookies?.[SESSION_COOKIE],
      tenantHeader: typeof req.headers["x-tenant-id"] === "string" ? req.headers["x-tenant-id"] : undefined,
    });
    rt.auth.requireScope(principal, scope, { unverifiedOk: req.routeOptions.config?.unverifiedOk === true });
    req.principal = principal;
  });

  app.get("/openapi.json", { config: { scope: null }, schema: { hide: true } }, async () => app.swagger());

  // each route plugin gets the few services it uses, never the whole runtime
  const system: SystemFacts = {
    store: rt.store,
    config: rt.config,
    limits: rt.limits,
    profiles: rt.profiles,
    activeProfile: rt.activeProfile,
    embedderStatus: () => rt.embedderStatus(),
    extraHealthChecks: () => rt.extraHealthChecks(),
    vectorHealth: () => rt.vectorHealth(),
  };
  await app.register(systemRoutes({ system, metrics: rt.metrics, accounts: rt.accounts, quotas: rt.quotas }));
  await app.register(tenantRoutes({ tenants: rt.tenants }));
  await app.register(apiKeyRoutes({ apiKeys: rt.apiKeys }));
  await app.register(authRoutes({ accounts: rt.accounts, publicUrl: rt.config.publicUrl }));
  await app.register(collectionRoutes({ collections: rt.collections }));
  await app.register(dataSourceRoutes({ sources: rt.sources, documents: rt.documents }));
  await app.register(documentRoutes({ documents: rt.documents, tempPath: () => rt.files.tempPath(), maxUploadBytes: rt.config.maxUploadBytes }));
  await app.register(searchRoutes({ search: rt.search }));
  await app.register(crawlRoutes({ crawls: rt.crawls }));
  await app.register(benchmarkRoutes({ benchmarks: rt.benchmarks, industryBenchmarks: rt.industryBenchmarks }));
  await app.register(auditRoutes({ audit: rt.audit }));
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
  // last: the console answers only its own paths, so no API path can be shadowed by it
  await app.register(consoleRoutes({ dir: opts.consoleDir ?? defaultConsoleDir() }));
  return app;
}
