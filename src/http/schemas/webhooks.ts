import { Type } from "@sinclair/typebox";
import { WEBHOOK_EVENTS } from "../../services/webhooks/webhook-types.js";
import { DateTime, Nullable, strictObject } from "./common.js";

export const WebhookCreate = strictObject(
  {
    url: Type.String({ format: "uri", minLength: 1, maxLength: 2083, description: "http(s) URL that receives the POSTs; the crawler's URL policy applies (no private addresses unless the deployment allows them)" }),
    events: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20, description: `events to deliver: ${WEBHOOK_EVENTS.join(", ")}` }),
    collection_id: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "only events about documents and crawls of this collection's data sources" }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  { $id: "WebhookCreate" },
);

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  collection_id: Nullable(Type.String()),
  description: Nullable(Type.String()),
  status: Type.String({ description: "enabled, or disabled (after persistent failure, or a 410 from the receiver; see disabled_reason)" }),
  disabled_reason: Nullable(Type.String()),
  created_at: DateTime,
  updated_at: DateTime,
};

export const WebhookOut = Type.Object(endpointFields, { $id: "WebhookOut" });

export const WebhookCreated = Type.Object(
  { ...endpointFields, secret: Type.String({ description: "whsec_<base64>: the Standard Webhooks signing secret, shown only in this answer" }) },
  { $id: "WebhookCreated" },
);

export const WebhookDeliveryOut = Type.Object(
  {
    id: Type.String({ description: "the webhook-id header: the same on every attempt and redelivery, for deduplication" }),
    endpoint_id: Type.String(),
    event: Type.String(),
    status: Type.String({ description: "pending (being attempted or waiting for a retry), delivered, or failed (every attempt failed)" }),
    attempts: Type.Integer(),
    response_status: Nullable(Type.Integer({ description: "HTTP status of the latest attempt; null when the receiver did not answer" })),
    last_error: Nullable(Type.String()),
    next_attempt_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
    payload: Type.Unknown({ description: "the body sent: {type, timestamp, data}" }),
  },
  { $id: "WebhookDeliveryOut" },
);
