// Probes and metrics for orchestrators and Prometheus: no credentials, kept out of the OpenAPI
// document's main sections (tag "operations"). systemRoutes (system.ts) registers them after /health.
import { Type } from "@sinclair/typebox";
import { publicRoute } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { readiness, type SystemFacts } from "../../services/system.js";
import type { Metrics } from "../../prometheus.js";

const tags = ["operations"];

/** What these routes use, and nothing else of the runtime. */
export interface OperationsRouteDeps {
  system: SystemFacts;
  metrics: Pick<Metrics, "modelReady" | "registry">;
}

export function registerOperationsRoutes(app: RouteApp, deps: OperationsRouteDeps) {
  registerLiveness(app);
  registerReadiness(app, deps);
  registerMetrics(app, deps);
}

function registerLiveness(app: RouteApp) {
  app.get(
    "/livez",
    {
      config: publicRoute,
      schema: { tags, summary: "Liveness: the process answers", response: { 200: Type.Object({ status: Type.Literal("ok") }) } },
    },
    async () => ({ status: "ok" as const }),
  );
}

const ReadyOut = Type.Object({
  status: Type.Union([Type.Literal("ready"), Type.Literal("not_ready")]),
  reasons: Type.Array(Type.String()),
});

function registerReadiness(app: RouteApp, { system }: OperationsRouteDeps) {
  app.get(
    "/readyz",
    {
      config: publicRoute,
      schema: {
        tags,
        summary: "Readiness: 200 when database, queue and model are ready; 503 with the reasons otherwise",
        response: { 200: ReadyOut, 503: ReadyOut },
      },
    },
    async (_req, reply) => {
      const r = await readiness(system);
      return reply.status(r.ready ? 200 : 503).send({ status: r.ready ? "ready" : "not_ready", reasons: r.reasons });
    },
  );
}

function registerMetrics(app: RouteApp, { system, metrics }: OperationsRouteDeps) {
  app.get(
    "/metrics",
    { config: publicRoute, schema: { tags, summary: "Prometheus metrics (text exposition format)", produces: ["text/plain"] } },
    async (_req, reply) => {
      metrics.modelReady.set(system.embedderStatus().state === "ready" ? 1 : 0);
      const body = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(body);
    },
  );
}
