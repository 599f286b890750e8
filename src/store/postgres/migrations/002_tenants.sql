-- Tenants are the distribution key of every other table (tenant_id first in each key and index),
-- so a tenant's rows can be co-located when the database is sharded (docs/decisions.md).
-- Timestamps are ISO-8601 UTC text, as the store interface carries them: ordering and equality
-- match the SQLite store exactly.
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL DEFAULT 'free',
  verified BOOLEAN NOT NULL DEFAULT TRUE,
  created_at TEXT NOT NULL
);
