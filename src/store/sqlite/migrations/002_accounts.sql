-- Accounts: people who sign up, their console sessions, emailed single-use tokens and the
-- failed-login throttle. Everything that belongs to a workspace references tenants(id) with
-- ON DELETE CASCADE so deleting the tenant row removes it.

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- as typed at signup (shown back to the user)
  email TEXT NOT NULL,
  -- lower-cased: emails are case-insensitive and unique across the deployment
  email_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL,
  email_verified_at TEXT,
  created_at TEXT NOT NULL,
  password_changed_at TEXT
);
CREATE INDEX users_tenant ON users(tenant_id, role);

-- Only the SHA-256 of the session token is stored; a database leak does not leak sessions.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);

-- Emailed tokens (email verification, password reset); hashed, single-use, expiring.
CREATE TABLE account_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX account_tokens_user ON account_tokens(user_id, purpose);

-- Login attempts in flight and failed ones, per subject ('email:<address>' or 'addr:<ip>').
-- Kept in the database (not memory) so every API process sees the same counts.
-- One reservation (one login request) writes a row per subject it counts against.
CREATE TABLE auth_attempts (
  reservation TEXT NOT NULL,
  subject TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (reservation, subject)
);
CREATE INDEX auth_attempts_subject ON auth_attempts(subject, at_ms);
CREATE INDEX auth_attempts_age ON auth_attempts(at_ms);
