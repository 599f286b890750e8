import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { Tenant, TenantCreate, TenantCreated, TenantPlanUpdate } from "../schemas/identity.js";
import { needs } from "../route-config.js";
import type { TenantService } from "../../services/tenants/tenants.js";

/** What these routes use, and nothing else of the runtime. */
export interface TenantRouteDeps {
  tenants: TenantService;
}

export const tenantRoutes =
  ({ tenants }: TenantRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["tenants"];
    app.get(
      "/tenants",
      { config: needs("platform"), schema: { tags, summary: "List tenants (operator)", response: { 200: Type.Array(ref(Tenant)), ...errors(401, 403) } } },
      async () => tenants.list(),
    );

    app.post(
      "/tenants",
      {
        config: needs("platform"),
        schema: {
          tags,
          summary: "Create a tenant with its first admin key (operator)",
          body: ref(TenantCreate),
          response: { 201: ref(TenantCreated), ...errors(401, 403, 409, 422) },
        },
      },
      async (req, reply) => reply.status(201).send(await tenants.create(req.body)),
    );

    app.put(
      "/tenants/:tenant_id/plan",
      {
        config: needs("platform"),
        schema: {
          tags,
          summary: "Change a tenant's plan (operator)",
          description: "Plans: free (5 sources, 1,000 documents, 5,000 queries a month), pro (100 / 100,000 / 500,000), enterprise (unlimited).",
          params: Type.Object({ tenant_id: Type.String() }),
          body: ref(TenantPlanUpdate),
          response: {
            200: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String(), created_at: Type.String(), plan: Type.String() }),
            ...errors(401, 403, 404, 422),
          },
        },
      },
      async (req) => tenants.setPlan(req.params.tenant_id, req.body.plan),
    );
  };
