import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { ApiKeyCreate, ApiKeyCreated, ApiKeyOut } from "../schemas/identity.js";
import { needs } from "../route-config.js";
import type { ApiKeyService } from "../../services/auth/api-keys.js";

/** What these routes use, and nothing else of the runtime. */
export interface ApiKeyRouteDeps {
  apiKeys: ApiKeyService;
}

export const apiKeyRoutes =
  ({ apiKeys }: ApiKeyRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["api-keys"];
    app.get(
      "/api-keys",
      { config: needs("admin"), schema: { tags, summary: "List API keys (never the secrets)", response: { 200: Type.Array(ref(ApiKeyOut)), ...errors(401, 403) } } },
      async (req) => apiKeys.list(req.principal!),
    );

    app.post(
      "/api-keys",
      {
        config: needs("admin"),
        schema: {
          tags,
          summary: "Create an API key; the secret is in `key`, shown once",
          body: ref(ApiKeyCreate),
          response: { 201: ref(ApiKeyCreated), ...errors(401, 403, 422) },
        },
      },
      async (req, reply) => reply.status(201).send(await apiKeys.create(req.principal!, req.body)),
    );

    app.delete(
      "/api-keys/:key_id",
      {
        config: needs("admin"),
        schema: {
          tags,
          summary: "Revoke an API key; it stops working at once",
          params: Type.Object({ key_id: Type.String() }),
          response: { 204: Empty, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        await apiKeys.revoke(req.principal!, req.params.key_id);
        return reply.status(204).send(null);
      },
    );
  };
