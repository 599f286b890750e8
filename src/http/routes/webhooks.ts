import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { WebhookCreate, WebhookCreated, WebhookDeliveryOut, WebhookOut } from "../schemas/webhooks.js";
import { needs } from "../route-config.js";
import type { WebhookService } from "../../services/webhooks/webhooks.js";

/** What these routes use, and nothing else of the runtime. */
export interface WebhookRouteDeps {
  webhooks: Pick<WebhookService, "create" | "list" | "get" | "remove" | "deliveries" | "redeliver">;
}

export const webhookRoutes =
  ({ webhooks }: WebhookRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["webhooks"];
    const id = Type.Object({ webhook_id: Type.String() });
    app.post(
      "/webhooks",
      {
        config: needs("admin"),
        schema: { tags, summary: "Register a webhook endpoint; its signing secret is in `secret`, shown once", body: ref(WebhookCreate), response: { 201: ref(WebhookCreated), ...errors(400, 401, 403, 404, 409, 422) } },
      },
      async (req, reply) => reply.status(201).send(await webhooks.create(req.principal!, req.body)),
    );
    app.get(
      "/webhooks",
      { config: needs("admin"), schema: { tags, summary: "List webhook endpoints (never their secrets)", response: { 200: Type.Array(ref(WebhookOut)), ...errors(401, 403) } } },
      async (req) => webhooks.list(req.principal!),
    );
    app.get(
      "/webhooks/:webhook_id",
      { config: needs("admin"), schema: { tags, summary: "One webhook endpoint", params: id, response: { 200: ref(WebhookOut), ...errors(401, 403, 404) } } },
      async (req) => webhooks.get(req.principal!, req.params.webhook_id),
    );
    app.delete(
      "/webhooks/:webhook_id",
      { config: needs("admin"), schema: { tags, summary: "Delete a webhook endpoint and its delivery log", params: id, response: { 204: Empty, ...errors(401, 403, 404) } } },
      async (req, reply) => {
        await webhooks.remove(req.principal!, req.params.webhook_id);
        return reply.status(204).send(null);
      },
    );
    app.get(
      "/webhooks/:webhook_id/deliveries",
      {
        config: needs("admin"),
        schema: { tags, summary: "The endpoint's 100 most recent deliveries, newest first", params: id, response: { 200: Type.Array(ref(WebhookDeliveryOut)), ...errors(401, 403, 404) } },
      },
      async (req) => webhooks.deliveries(req.principal!, req.params.webhook_id),
    );
    app.post(
      "/webhooks/:webhook_id/deliveries/:delivery_id/redeliver",
      {
        config: needs("admin"),
        schema: {
          tags,
          summary: "Send a delivered or failed message again (same webhook-id); re-enables a disabled endpoint",
          params: Type.Object({ webhook_id: Type.String(), delivery_id: Type.String() }),
          response: { 202: ref(WebhookDeliveryOut), ...errors(401, 403, 404, 409) },
        },
      },
      async (req, reply) => reply.status(202).send(await webhooks.redeliver(req.principal!, req.params.webhook_id, req.params.delivery_id)),
    );
  };
