import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { Runtime } from "../../runtime.js";
import { errors, ref } from "../schemas/common.js";
import { CapabilitiesOut, EmbeddingProfileOut, HealthOut, MeOut } from "../schemas/identity.js";
import { needs, publicRoute } from "../route-config.js";
import { tenantOf } from "../../services/auth.js";
import { tenantOut } from "../../services/tenants.js";
import { keyOut } from "../../services/api-keys.js";
import { usageOf } from "../../services/plans.js";
import { profileOut, healthReport, capabilities, readiness } from "../../services/system.js";

export const systemRoutes =
  (rt: Runtime): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/health",
      {
        config: publicRoute,
        schema: { tags: ["system"], summary: "Dependency health", response: { 200: ref(HealthOut), 503: ref(HealthOut) } },
      },
      async (_req, reply) => {
        const report = await healthReport(rt);
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
        const r = await readiness(rt);
        return reply.status(r.ready ? 200 : 503).send({ status: r.ready ? "ready" : "not_ready", reasons: r.reasons });
      },
    );

    app.get(
      "/metrics",
      { config: publicRoute, schema: { tags: ["operations"], summary: "Prometheus metrics (text exposition format)", produces: ["text/plain"] } },
      async (_req, reply) => {
        rt.metrics.modelReady.set(rt.embedderStatus().state === "ready" ? 1 : 0);
        const body = await rt.metrics.registry.metrics();
        return reply.type(rt.metrics.registry.contentType).send(body);
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
          user: p.userId ? await rt.userOut(p.userId) : null,
          role: p.role,
          plan: tenant.plan,
          auth_method: p.authMethod,
          usage: await usageOf(rt.store, tenant.id, tenant.plan),
        };
      },
    );

    app.get(
      "/capabilities",
      {
        config: needs("search"),
        schema: { tags: ["system"], summary: "What this deployment allows", response: { 200: ref(CapabilitiesOut), ...errors(401, 403) } },
      },
      async () => capabilities(rt),
    );

    app.get(
      "/embedding-profile",
      {
        config: needs("search"),
        schema: { tags: ["system"], summary: "The active embedding profile", response: { 200: ref(EmbeddingProfileOut), ...errors(401, 403) } },
      },
      async () => profileOut(rt, rt.activeProfile),
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
      async () => rt.profiles.map((p) => profileOut(rt, p)),
    );
  };
