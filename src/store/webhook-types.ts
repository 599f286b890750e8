// Storage contract of webhooks: a tenant's endpoints (URL, events, optional collection filter,
// signing secret, health) and the deliveries of events to them (one row per message, its attempts
// summed up). Request-side methods take the tenant id; worker-side ones the delivery id the queue
// handed over.

export type EndpointStatus = "enabled" | "disabled";
export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface WebhookEndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string[];
  /** only events about documents of this collection (crawl events: of a source in it); null = all */
  collection_id: string | null;
  description: string | null;
  /** whsec_<base64>: the signing key; shown once, at creation */
  secret: string;
  status: EndpointStatus;
  disabled_reason: string | null;
  /** deliveries in a row that failed every attempt */
  failure_streak: number;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryRow {
  /** msg_...: the webhook-id header, the same on every attempt and redelivery */
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event: string;
  /** the exact body sent (JSON text), signed anew on each attempt */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  /** HTTP status of the latest attempt; null when it got no answer */
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryPatch {
  status?: DeliveryStatus;
  attempts?: number;
  response_status?: number | null;
  last_error?: string | null;
  next_attempt_at?: string | null;
}

export interface EndpointHealth {
  status: EndpointStatus;
  disabled_reason: string | null;
  failure_streak: number;
}

export interface WebhookStore {
  /** false when the tenant already has `limit` endpoints */
  createEndpoint(row: WebhookEndpointRow, limit: number): Promise<boolean>;
  listEndpoints(tenantId: string): Promise<WebhookEndpointRow[]>;
  getEndpoint(tenantId: string, id: string): Promise<WebhookEndpointRow | null>;
  /** deletes the endpoint and its deliveries */
  deleteEndpoint(tenantId: string, id: string): Promise<boolean>;
  /** the tenant's enabled endpoints (the caller filters by event and collection) */
  enabledEndpoints(tenantId: string): Promise<WebhookEndpointRow[]>;
  /** worker side: by id alone */
  endpointById(id: string): Promise<WebhookEndpointRow | null>;
  setEndpointHealth(id: string, health: EndpointHealth): Promise<void>;
  createDelivery(row: WebhookDeliveryRow): Promise<void>;
  getDelivery(tenantId: string, id: string): Promise<WebhookDeliveryRow | null>;
  /** worker side: by id alone */
  deliveryById(id: string): Promise<WebhookDeliveryRow | null>;
  updateDelivery(id: string, patch: DeliveryPatch): Promise<void>;
  /** newest first */
  listDeliveries(tenantId: string, endpointId: string, limit: number): Promise<WebhookDeliveryRow[]>;
  /** pending deliveries due before `before` (recovery gives each a live queue job) */
  dueDeliveries(before: string, limit: number): Promise<{ id: string; tenant_id: string; attempts: number }[]>;
}

export const ENDPOINT_COLUMNS = "id, tenant_id, url, events, collection_id, description, secret, status, disabled_reason, failure_streak, created_at, updated_at";
export const DELIVERY_COLUMNS = "id, tenant_id, endpoint_id, event, payload, status, attempts, response_status, last_error, next_attempt_at, created_at, updated_at";

export const endpointValues = (r: WebhookEndpointRow): unknown[] => [
  r.id, r.tenant_id, r.url, JSON.stringify(r.events), r.collection_id, r.description, r.secret, r.status, r.disabled_reason, r.failure_streak, r.created_at, r.updated_at,
];
export const deliveryValues = (r: WebhookDeliveryRow): unknown[] => [
  r.id, r.tenant_id, r.endpoint_id, r.event, r.payload, r.status, r.attempts, r.response_status, r.last_error, r.next_attempt_at, r.created_at, r.updated_at,
];
export const DELIVERY_PATCH_COLUMNS = ["status", "attempts", "response_status", "last_error", "next_attempt_at"] as const;
