-- API keys, usage counters and accounts (users, console sessions, emailed tokens, the login
-- throttle), mirroring the SQLite store (sqlite/migrations/001, 002). JSON values are text, as the
-- store interface carries them; timestamps ISO-8601 UTC text (002_tenants.sql).

CREATE TABLE api_keys (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  -- SHA-256 of the secret: looked up on every request, before the tenant is known
  hash TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT,
  last_used_at TEXT,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at);
CREATE INDEX api_keys_id ON api_keys (id);

-- Monthly query counters; sources and documents are counted from their tables.
CREATE TABLE usage_counters (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  period TEXT NOT NULL,
  queries BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, period)
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  -- lower-cased: unique across the deployment (sign-in knows the email, not the tenant)
  email_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL,
  email_verified_at TEXT,
  created_at TEXT NOT NULL,
  password_changed_at TEXT
);
CREATE INDEX users_tenant ON users (tenant_id, role, created_at);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE account_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX account_tokens_user ON account_tokens (user_id, purpose);

-- Login attempts in flight and failed ones, per subject ('email:<address>' or 'addr:<ip>'), shared
-- by every API process. A reservation locks its subjects (advisory locks) while it counts.
CREATE TABLE auth_attempts (
  reservation TEXT NOT NULL,
  subject TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  PRIMARY KEY (reservation, subject)
);
CREATE INDEX auth_attempts_subject ON auth_attempts (subject, at_ms);
CREATE INDEX auth_attempts_age ON auth_attempts (at_ms);
