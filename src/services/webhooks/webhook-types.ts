// What the webhook service's modules share: dependencies, the events, the API shapes.
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { CollectionCatalog, SourceCatalog } from "../../store/content-store.js";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../store/webhook-types.js";
import type { JobQueue } from "../../jobs/types.js";
import type { UrlGuard } from "../../crawl/index.js";

export const WEBHOOK_JOB_KIND = "webhook";

/** Events an endpoint can subscribe to. */
export const WEBHOOK_EVENTS = [
  "document.indexed",
  "document.failed",
  "crawl.completed",
  "crawl.failed",
  "source.synced",
  "benchmark.completed",
  "tuning.completed",
  "adaptation.completed",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Endpoints per workspace. */
export const MAX_ENDPOINTS = 20;
/** GET /webhooks/{id}/deliveries: newest first, at most this many. */
export const DELIVERIES_LIMIT = 100;

export interface WebhookServiceDeps {
  store: Pick<Store, "webhooks"> & { content: Pick<SourceCatalog & CollectionCatalog, "getSource" | "existingCollectionIds"> };
  log: Logger;
  /** the SSRF guard outbound requests follow (the crawler's URL policy) */
  guard: UrlGuard;
  /** the queue delivery jobs run on; a getter because its handler is this service */
  queue: () => Pick<JobQueue, "enqueue">;
  config: {
    /** delay before each retry; attempts = retries + 1 */
    retryDelaysMs: number[];
    timeoutMs: number;
    disableAfterFailures: number;
  };
}

export interface WebhookEndpointOut {
  id: string;
  url: string;
  events: string[];
  collection_id: string | null;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export const endpointOut = (r: WebhookEndpointRow): WebhookEndpointOut => ({
  id: r.id,
  url: r.url,
  events: r.events,
  collection_id: r.collection_id,
  description: r.description,
  status: r.status,
  disabled_reason: r.disabled_reason,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export interface WebhookDeliveryOut {
  id: string;
  endpoint_id: string;
  event: string;
  status: string;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  payload: unknown;
}

export const deliveryOut = (r: WebhookDeliveryRow): WebhookDeliveryOut => ({
  id: r.id,
  endpoint_id: r.endpoint_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  response_status: r.response_status,
  last_error: r.last_error,
  next_attempt_at: r.next_attempt_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
  payload: JSON.parse(r.payload) as unknown,
});

/** The queue job of one attempt; the attempt number keeps each its own job on either backend. */
export const deliveryJob = (d: { id: string; tenant_id: string }, attempt: number, delayMs = 0) => ({
  tenant_id: d.tenant_id,
  kind: WEBHOOK_JOB_KIND,
  subject: `${d.id}:${attempt}`,
  max_attempts: 3,
  ...(delayMs > 0 ? { delayMs } : {}),
});
