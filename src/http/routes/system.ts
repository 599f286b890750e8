import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { CapabilitiesOut, EmbeddingProfileOut, HealthOut, MeOut } from "../schemas/identity.js";
import { needs, publicRoute } from "../route-config.js";
import { tenantOf } from "../../services/auth.js";
import { tenantOut } from "../../services/tenants.js";
import { keyOut } from "../../services/api-keys.js";
import type { AccountService } from "../../services/accounts.js";
import type { QuotaService } from "../../services/quotas.js";
import { profileOut, healthReport, capabilities, readiness, type SystemFacts } from "../../services/system.js";
import type { Metrics } from "../../metrics.js";

/** What these routes use, and nothing else of the runtime. */
export interface SystemRouteDeps {
  /** health, readiness, capabilities and the embedding profiles (services/system.ts) */
  system: SystemFacts;
  metrics: Pick<Metrics, "modelReady" | "registry">;
  accounts: Pick<AccountService, "userOut">;
  quotas: Pick<QuotaService, "usage">;
}

export const systemRoutes =
  ({ system, metrics, accounts, quotas }: SystemRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/health",
      {
        config: publicRoute,
        schema: { tags: ["system"], summary: "Dependency health", response: { 200: ref(HealthOut), 503: ref(HealthOut) } },
      },
      async (_req, reply) => {
        const report = await healthReport(system);
        return reply.status(report.status === "down" ? 503 : 200).send(report);
      },
    );

    // Probes and metrics for orchestrators and Prometheus: no credentials, kept out of the OpenAPI
    // document's main sections (tag "operations").
    app.get(
      "/livez",
      {
        config: publicRoute,
        schema: { tags: ["operations"], summary: "Liveness: the process answers", response: { 200: Type.Object({ status: Type.Literal("ok") }) } },
      },
      async () => ({ status: "ok" as const }),
    );

    const ReadyOut = Type.Object({
      status: Type.Union([Type.Literal("ready"), Type.Literal("not_ready")]),
      reasons: Type.Array(Type.String()),
    });
    app.get(
      "/readyz",
      {
        config: publicRoute,
        schema: {
          tags: ["operations"],
          summary: "Readiness: 200 when database, queue and model are ready; 503 with the reasons otherwise",
          response: { 200: ReadyOut, 503: ReadyOut },
        },
      },
      async (_req, reply) => {
        const r = await readiness(system);
        return reply.status(r.ready ? 200 : 503).send({ status: r.ready ? "ready" : "not_ready", reasons: r.reasons });
      },
    );

    app.get(
      "/metrics",
      { config: publicRoute, schema: { tags: ["operations"], summary: "Prometheus metrics (text exposition format)", produces: ["text/plain"] } },
      async (_req, reply) => {
        metrics.modelReady.set(system.embedderStatus().state === "ready" ? 1 : 0);
        const body = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(body);
      },
    );

    app.get(
      "/me",
      {
        config: needs("search"),
        schema: { tags: ["system"], summary: "Who am I: tenant, scopes, plan and usage", response: { 200: ref(MeOut), ...errors(401, 403) } },
      },
      async (req) => {
        const p = req.principal!;
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
      },
    );

    app.get(
      "/capabilities",
      {
        config: needs("search"),
        schema: { tags: ["system"], summary: "What this deployment allows", response: { 200: ref(CapabilitiesOut), ...errors(401, 403) } },
      },
      async () => capabilities(system),
    );

    app.get(
      "/embedding-profile",
      {
        config: needs("search"),
        schema: { tags: ["system"], summary: "The active embedding profile", response: { 200: ref(EmbeddingProfileOut), ...errors(401, 403) } },
      },
      async () => profileOut(system, system.activeProfile),
    );

    app.get(
      "/embedding-profiles",
      {
        config: needs("search"),
        schema: {
          tags: ["system"],
          summary: "Every embedding profile the deployment defines",
          response: { 200: Type.Array(ref(EmbeddingProfileOut)), ...errors(401, 403) },
        },
      },
      async () => system.profiles.map((p) => profileOut(system, p)),
    );
  };
