// Webhooks: endpoints a workspace registers (POST/GET/DELETE /webhooks), their delivery log and
// redelivery. Events are queued as deliveries by webhook-events.ts and sent from the worker by
// webhook-delivery.ts; createWebhookService binds them all to one set of dependencies.
import { UrlPolicyError, describeError } from "../../crawl/index.js";
import type { RecoveryHook, RunningJob } from "../../jobs/types.js";
import { newId, nowIso } from "../../store/ids.js";
import type { WebhookEndpointRow } from "../../store/webhook-types.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { ValidationError, badRequest, conflict, notFound } from "../errors.js";
import { newWebhookSecret } from "./webhook-signing.js";
import { emitWebhookEvent, type EventScope } from "./webhook-events.js";
import { handleDeliveryJob, recoverDeliveries } from "./webhook-delivery.js";
import {
  DELIVERIES_LIMIT, MAX_ENDPOINTS, WEBHOOK_EVENTS, deliveryJob, deliveryOut, endpointOut,
  type WebhookEndpointOut, type WebhookEvent, type WebhookServiceDeps,
} from "./webhook-types.js";

export interface WebhookCreateBody {
  url: string;
  events: string[];
  collection_id?: string | null;
  description?: string | null;
}

async function endpointOf(deps: WebhookServiceDeps, p: Principal, id: string): Promise<WebhookEndpointRow> {
  const row = await deps.store.webhooks.getEndpoint(tenantOf(p).id, id);
  if (!row) throw notFound("Webhook endpoint", id);
  return row;
}

/** Collection of this workspace (404), events known (422), URL allowed by the SSRF guard (400). */
async function validate(deps: WebhookServiceDeps, tenantId: string, body: WebhookCreateBody): Promise<void> {
  if (body.collection_id && (await deps.store.content.existingCollectionIds(tenantId, [body.collection_id])).length === 0) {
    throw notFound("Collection", body.collection_id);
  }
  const unknown = body.events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length) {
    throw new ValidationError(unknown.map((e) => ({ type: "enum", loc: ["body", "events"], msg: `Unknown event '${e}'; use one of ${WEBHOOK_EVENTS.join(", ")}.`, input: e })));
  }
  try {
    await deps.guard.check(body.url);
  } catch (err) {
    if (err instanceof UrlPolicyError) throw badRequest(`The webhook URL is not allowed: ${err.message}`);
    throw badRequest(`The webhook URL cannot be reached: ${describeError(err)}`);
  }
}

export async function createEndpoint(deps: WebhookServiceDeps, p: Principal, body: WebhookCreateBody): Promise<WebhookEndpointOut & { secret: string }> {
  const tenant = tenantOf(p);
  await validate(deps, tenant.id, body);
  const now = nowIso();
  const row: WebhookEndpointRow = {
    id: newId("whep"),
    tenant_id: tenant.id,
    url: body.url,
    events: [...new Set(body.events)],
    collection_id: body.collection_id ?? null,
    description: body.description ?? null,
    secret: newWebhookSecret(),
    status: "enabled",
    disabled_reason: null,
    failure_streak: 0,
    created_at: now,
    updated_at: now,
  };
  if (!(await deps.store.webhooks.createEndpoint(row, MAX_ENDPOINTS))) {
    throw conflict(`This workspace has ${MAX_ENDPOINTS} webhook endpoints, the most it may have; delete one first.`);
  }
  return { ...endpointOut(row), secret: row.secret };
}

/** failed -> pending, its attempts counted afresh, sent again now with the same webhook-id. */
export async function redeliver(deps: WebhookServiceDeps, p: Principal, endpointId: string, deliveryId: string) {
  const endpoint = await endpointOf(deps, p, endpointId);
  const d = await deps.store.webhooks.getDelivery(endpoint.tenant_id, deliveryId);
  if (!d || d.endpoint_id !== endpoint.id) throw notFound("Webhook delivery", deliveryId);
  if (d.status === "pending") throw conflict(`Delivery '${deliveryId}' is still pending; it is retried on its own.`);
  if (endpoint.status === "disabled") {
    // redelivering is how an operator says the receiver works again
    await deps.store.webhooks.setEndpointHealth(endpoint.id, { status: "enabled", disabled_reason: null, failure_streak: 0 });
  }
  await deps.store.webhooks.updateDelivery(d.id, { status: "pending", attempts: 0, next_attempt_at: nowIso(), last_error: null });
  await deps.queue().enqueue(deliveryJob(d, 1));
  return deliveryOut({ ...d, status: "pending", attempts: 0, last_error: null });
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const recover: RecoveryHook = (queue) => recoverDeliveries(deps, queue);
  return {
    create: (p: Principal, body: WebhookCreateBody) => createEndpoint(deps, p, body),
    list: async (p: Principal) => (await deps.store.webhooks.listEndpoints(tenantOf(p).id)).map(endpointOut),
    get: async (p: Principal, id: string) => endpointOut(await endpointOf(deps, p, id)),
    remove: async (p: Principal, id: string) => {
      if (!(await deps.store.webhooks.deleteEndpoint(tenantOf(p).id, id))) throw notFound("Webhook endpoint", id);
    },
    deliveries: async (p: Principal, id: string) => {
      const endpoint = await endpointOf(deps, p, id);
      return (await deps.store.webhooks.listDeliveries(endpoint.tenant_id, endpoint.id, DELIVERIES_LIMIT)).map(deliveryOut);
    },
    redeliver: (p: Principal, endpointId: string, deliveryId: string) => redeliver(deps, p, endpointId, deliveryId),
    /** queues a delivery of the event to every enabled endpoint that subscribed to it; never throws */
    emit: (tenantId: string, event: WebhookEvent, data: Record<string, unknown>, scope: EventScope = {}) => emitWebhookEvent(deps, tenantId, event, data, scope),
    /** the webhook queue's handler: one attempt of one delivery */
    handle: (job: RunningJob) => handleDeliveryJob(deps, job),
    recover,
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
export type WebhookEmitter = Pick<WebhookService, "emit">;
