-- Webhook endpoints and their deliveries (sqlite/migrations/021).
CREATE TABLE webhook_endpoints (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  collection_id TEXT,
  description TEXT,
  secret TEXT NOT NULL,
  status TEXT NOT NULL,
  disabled_reason TEXT,
  failure_streak INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, collection_id) REFERENCES collections (tenant_id, id) ON DELETE CASCADE
);
-- workers address an endpoint by its id alone (ids are random and unique)
CREATE INDEX webhook_endpoints_id ON webhook_endpoints (id);

CREATE TABLE webhook_deliveries (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  response_status INTEGER,
  last_error TEXT,
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_id ON webhook_deliveries (id);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (tenant_id, endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
