-- The audit trail (see store/audit-types.ts). No foreign key to tenants on purpose: the record of
-- a workspace's deletion outlives it until retention prunes it.
CREATE TABLE audit_log (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  at TEXT NOT NULL,
  actor_type TEXT NOT NULL,
  actor_id TEXT,
  action TEXT NOT NULL,
  target_type TEXT,
  target_id TEXT,
  detail TEXT NOT NULL DEFAULT '{}',
  address TEXT,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX audit_log_by_time ON audit_log (tenant_id, at DESC, id DESC);
CREATE INDEX audit_log_prune ON audit_log (at);
