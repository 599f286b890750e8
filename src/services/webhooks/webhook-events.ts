// An event becomes one delivery per enabled endpoint that subscribed to it (and whose collection
// filter it passes), stored first and then queued, so a delivery survives a crash between the two
// (recovery queues pending deliveries that are due).
import { newId, nowIso } from "../../store/ids.js";
import type { WebhookEndpointRow } from "../../store/webhook-types.js";
import { deliveryJob, type WebhookEvent, type WebhookServiceDeps } from "./webhook-types.js";

/** What the event is about, for endpoints filtered by collection. */
export interface EventScope {
  /** the data source the event concerns; its collections decide */
  sourceId?: string;
  /** the collection the event concerns (a benchmark run, a tuning) */
  collectionId?: string;
}

async function matches(deps: WebhookServiceDeps, tenantId: string, ep: WebhookEndpointRow, event: string, scope: EventScope): Promise<boolean> {
  if (!ep.events.includes(event)) return false;
  if (!ep.collection_id) return true;
  if (scope.collectionId) return scope.collectionId === ep.collection_id;
  if (!scope.sourceId) return false;
  const source = await deps.store.content.getSource(tenantId, scope.sourceId);
  return !!source?.collection_ids.includes(ep.collection_id);
}

export async function emitWebhookEvent(deps: WebhookServiceDeps, tenantId: string, event: WebhookEvent, data: Record<string, unknown>, scope: EventScope): Promise<number> {
  try {
    const endpoints = await deps.store.webhooks.enabledEndpoints(tenantId);
    let queued = 0;
    for (const ep of endpoints) {
      if (!(await matches(deps, tenantId, ep, event, scope))) continue;
      const now = nowIso();
      const id = newId("msg");
      const payload = JSON.stringify({ type: event, timestamp: now, data });
      const row = { id, tenant_id: tenantId, endpoint_id: ep.id, event, payload, status: "pending" as const, attempts: 0, response_status: null, last_error: null, next_attempt_at: now, created_at: now, updated_at: now };
      await deps.store.webhooks.createDelivery(row);
      // a queue that cannot take it now leaves the delivery pending: recovery queues it later
      await deps.queue().enqueue(deliveryJob(row, 1)).catch((err: unknown) => deps.log.warn({ err, delivery: id }, "webhook delivery not queued yet"));
      queued++;
    }
    return queued;
  } catch (err) {
    // an event must never fail what raised it (a crawl, an ingest job)
    deps.log.warn({ err, event, tenant: tenantId }, "webhook event not recorded");
    return 0;
  }
}
