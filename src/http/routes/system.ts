// The deployment as a caller sees it: health, who the caller is, what the deployment allows and its
// embedding profiles. The probes and /metrics (operations.ts) are registered from here, after /health.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { CapabilitiesOut, EmbeddingProfileOut, HealthOut, MeOut } from "../schemas/identity.js";
import { needs, publicRoute } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { tenantOut } from "../../services/tenants/tenants.js";
import { keyOut } from "../../services/auth/api-keys.js";
import type { AccountService } from "../../services/accounts/accounts.js";
import type { QuotaService } from "../../services/tenants/quotas.js";
import { profileOut, healthReport, capabilities, type SystemFacts } from "../../services/system.js";
import type { Metrics } from "../../prometheus.js";
import { registerOperationsRoutes } from "./operations.js";

const tags = ["system"];

/** What these routes use, and nothing else of the runtime. */
export interface SystemRouteDeps {
  /** health, readiness, capabilities and the embedding profiles (services/system.ts) */
  system: SystemFacts;
  metrics: Pick<Metrics, "modelReady" | "registry">;
  accounts: Pick<AccountService, "userOut">;
  quotas: Pick<QuotaService, "usage">;
}

export const systemRoutes =
  (deps: SystemRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerHealth(app, deps.system);
    registerOperationsRoutes(app, deps);
    registerMe(app, deps);
    registerCapabilities(app, deps.system);
    registerEmbeddingProfiles(app, deps.system);
  };

function registerHealth(app: RouteApp, system: SystemFacts) {
  app.get(
    "/health",
    {
      config: publicRoute,
      schema: { tags, summary: "Dependency health", response: { 200: ref(HealthOut), 503: ref(HealthOut) } },
    },
    async (_req, reply) => {
      const report = await healthReport(system);
      return reply.status(report.status === "down" ? 503 : 200).send(report);
    },
  );
}

function registerMe(app: RouteApp, deps: SystemRouteDeps) {
  app.get(
    "/me",
    {
      config: needs("search"),
      schema: { tags, summary: "Who am I: tenant, scopes, plan and usage", response: { 200: ref(MeOut), ...errors(401, 403) } },
    },
    async (req) => me(deps, req.principal!),
  );
}

async function me({ accounts, quotas }: SystemRouteDeps, p: Principal) {
  const tenant = tenantOf(p);
  return {
    tenant: tenantOut(tenant),
    scopes: p.scopes,
    key: p.key ? keyOut(p.key) : null,
    user: p.userId ? await accounts.userOut(p.userId) : null,
    role: p.role,
    plan: tenant.plan,
    auth_method: p.authMethod,
    usage: await quotas.usage(tenant),
  };
}

function registerCapabilities(app: RouteApp, system: SystemFacts) {
  app.get(
    "/capabilities",
    {
      config: needs("search"),
      schema: { tags, summary: "What this deployment allows", response: { 200: ref(CapabilitiesOut), ...errors(401, 403) } },
    },
    async () => capabilities(system),
  );
}

function registerEmbeddingProfiles(app: RouteApp, system: SystemFacts) {
  app.get(
    "/embedding-profile",
    {
      config: needs("search"),
      schema: { tags, summary: "The active embedding profile", response: { 200: ref(EmbeddingProfileOut), ...errors(401, 403) } },
    },
    async () => profileOut(system, system.activeProfile),
  );
  app.get(
    "/embedding-profiles",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Every embedding profile the deployment defines",
        response: { 200: Type.Array(ref(EmbeddingProfileOut)), ...errors(401, 403) },
      },
    },
    async () => system.profiles.map((p) => profileOut(system, p)),
  );
}
