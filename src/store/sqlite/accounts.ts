import type { DB } from "./db.js";
import { isUniqueViolation } from "./db.js";
import { UniqueViolation, type TenantRow } from "../types.js";
import type { AccountStore, AccountTokenRow, SessionRow, TokenPurpose, TokenRedemption, UserRow } from "../account-types.js";
import { newId } from "../ids.js";
import { removeChunkEntries } from "./content/index-entries.js";

interface RawTenant extends Omit<TenantRow, "verified"> {
  verified: number;
}

const USER_COLS = "id, tenant_id, email, email_key, password_hash, role, email_verified_at, created_at, password_changed_at";

export function sqliteAccounts(db: DB): AccountStore {
  const insertTenant = db.prepare(
    "INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES (@id, @name, @slug, @plan, @verified, @created_at)",
  );
  const insertUser = db.prepare(`INSERT INTO users (${USER_COLS}) VALUES (@id, @tenant_id, @email, @email_key, @password_hash, @role, @email_verified_at, @created_at, @password_changed_at)`);
  const insertSession = db.prepare(
    "INSERT INTO sessions (id, token_hash, user_id, tenant_id, created_at, expires_at) VALUES (@id, @token_hash, @user_id, @tenant_id, @created_at, @expires_at)",
  );
  const insertToken = db.prepare(
    "INSERT INTO account_tokens (id, token_hash, user_id, purpose, created_at, expires_at, used_at) VALUES (@id, @token_hash, @user_id, @purpose, @created_at, @expires_at, @used_at)",
  );
  // Retired tokens are deleted rather than flagged: a superseded link is as invalid as an unknown one.
  const retireTokens = db.prepare("DELETE FROM account_tokens WHERE user_id = ? AND purpose = ? AND used_at IS NULL");
  const userById = db.prepare(`SELECT ${USER_COLS} FROM users WHERE id = ?`);
  const tokenByHash = db.prepare("SELECT * FROM account_tokens WHERE token_hash = ? AND purpose = ?");
  const markUsed = db.prepare("UPDATE account_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL");

  const createSignup = db.transaction((x: { tenant: TenantRow; user: UserRow; session: SessionRow; token: AccountTokenRow | null }) => {
    insertTenant.run({ ...x.tenant, verified: x.tenant.verified ? 1 : 0 });
    insertUser.run(x.user);
    insertSession.run(x.session);
    if (x.token) insertToken.run(x.token);
  });

  const issueToken = db.transaction((t: AccountTokenRow) => {
    retireTokens.run(t.user_id, t.purpose);
    insertToken.run(t);
  });

  /** Marks the token used if it is live; the caller's effect runs in the same transaction. */
  function redeem(tokenHash: string, purpose: TokenPurpose, now: string): TokenRedemption {
    const t = tokenByHash.get(tokenHash, purpose) as AccountTokenRow | undefined;
    if (!t || t.used_at) return { status: "invalid" };
    if (t.expires_at <= now) return { status: "expired" };
    if (markUsed.run(now, t.id).changes !== 1) return { status: "invalid" };
    const user = userById.get(t.user_id) as UserRow | undefined;
    return user ? { status: "ok", user } : { status: "invalid" };
  }

  const verifyEmail = db.transaction((tokenHash: string, now: string): TokenRedemption => {
    const r = redeem(tokenHash, "verify_email", now);
    if (r.status !== "ok") return r;
    db.prepare("UPDATE users SET email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?").run(now, r.user.id);
    // The workspace's ingest gate follows its owner's address.
    if (r.user.role === "owner") db.prepare("UPDATE tenants SET verified = 1 WHERE id = ?").run(r.user.tenant_id);
    retireTokens.run(r.user.id, "verify_email");
    return { status: "ok", user: userById.get(r.user.id) as UserRow };
  });

  const resetPassword = db.transaction((tokenHash: string, passwordHash: string, now: string): TokenRedemption => {
    const r = redeem(tokenHash, "reset_password", now);
    if (r.status !== "ok") return r;
    db.prepare(
      "UPDATE users SET password_hash = ?, password_changed_at = ?, email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?",
    ).run(passwordHash, now, now, r.user.id);
    if (r.user.role === "owner") db.prepare("UPDATE tenants SET verified = 1 WHERE id = ?").run(r.user.tenant_id);
    db.prepare("DELETE FROM sessions WHERE user_id = ?").run(r.user.id);
    retireTokens.run(r.user.id, "reset_password");
    retireTokens.run(r.user.id, "verify_email");
    return { status: "ok", user: userById.get(r.user.id) as UserRow };
  });

  const countSince = db.prepare("SELECT count(*) AS n, min(at_ms) AS oldest FROM auth_attempts WHERE subject = ? AND at_ms > ?");
  const insertAttempt = db.prepare("INSERT INTO auth_attempts (reservation, subject, at_ms) VALUES (?, ?, ?)");
  // Each subject is pruned by its own window (login and reset throttles use different ones);
  // anything older than a day is garbage whatever its subject.
  // Vector entries cannot cascade (virtual tables): they go first, in the same transaction; every
  // other row of the tenant (lexical terms included) follows the tenant row through ON DELETE CASCADE.
  const deleteTenant = db.transaction((tenantId: string): boolean => {
    removeChunkEntries(db, "c.tenant_id = ?", [tenantId]);
    return db.prepare("DELETE FROM tenants WHERE id = ?").run(tenantId).changes > 0;
  });
  const pruneSubject = db.prepare("DELETE FROM auth_attempts WHERE subject = ? AND at_ms <= ?");
  const pruneAll = db.prepare("DELETE FROM auth_attempts WHERE at_ms <= ?");
  // IMMEDIATE takes the write lock before reading, so two processes cannot both read "4 of 5".
  const reserve = db.transaction((rules: { subject: string; limit: number }[], nowMs: number, windowMs: number) => {
    const since = nowMs - windowMs;
    pruneAll.run(nowMs - 86_400_000);
    for (const r of rules) {
      pruneSubject.run(r.subject, since);
      const c = countSince.get(r.subject, since) as { n: number; oldest: number | null };
      if (c.n >= r.limit) return { ok: false as const, subject: r.subject, retryAtMs: (c.oldest ?? nowMs) + windowMs };
    }
    const id = newId("att");
    for (const r of rules) insertAttempt.run(id, r.subject, nowMs);
    return { ok: true as const, id };
  });

  return {
    async createSignup(x) {
      try {
        createSignup(x);
      } catch (err) {
        if (isUniqueViolation(err)) {
          const msg = err instanceof Error ? err.message : "";
          throw new UniqueViolation(msg.includes("users.email_key") ? "email" : msg.includes("tenants.slug") ? "slug" : "unknown");
        }
        throw err;
      }
    },
    async emailTaken(emailKey) {
      return db.prepare("SELECT 1 FROM users WHERE email_key = ?").get(emailKey) !== undefined;
    },
    async findUserByEmail(emailKey) {
      return (db.prepare(`SELECT ${USER_COLS} FROM users WHERE email_key = ?`).get(emailKey) as UserRow | undefined) ?? null;
    },
    async getUser(id) {
      return (userById.get(id) as UserRow | undefined) ?? null;
    },
    async ownerOf(tenantId) {
      return (
        (db.prepare(`SELECT ${USER_COLS} FROM users WHERE tenant_id = ? AND role = 'owner' ORDER BY created_at LIMIT 1`).get(tenantId) as
          | UserRow
          | undefined) ?? null
      );
    },

    async createSession(s) {
      insertSession.run(s);
    },
    async findSession(tokenHash, now) {
      const s = db.prepare("SELECT * FROM sessions WHERE token_hash = ?").get(tokenHash) as SessionRow | undefined;
      if (!s) return null;
      if (s.expires_at <= now) {
        db.prepare("DELETE FROM sessions WHERE id = ?").run(s.id);
        return null;
      }
      const user = userById.get(s.user_id) as UserRow | undefined;
      const t = db.prepare("SELECT * FROM tenants WHERE id = ?").get(s.tenant_id) as RawTenant | undefined;
      if (!user || !t) return null;
      return { session: s, user, tenant: { ...t, verified: t.verified === 1 } };
    },
    async deleteSession(tokenHash) {
      return db.prepare("DELETE FROM sessions WHERE token_hash = ?").run(tokenHash).changes > 0;
    },
    async deleteExpiredSessions(now) {
      return db.prepare("DELETE FROM sessions WHERE expires_at <= ?").run(now).changes;
    },

    async issueToken(t) {
      issueToken(t);
    },
    async verifyEmailWithToken(tokenHash, now) {
      return verifyEmail(tokenHash, now);
    },
    async resetPasswordWithToken(tokenHash, passwordHash, now) {
      return resetPassword(tokenHash, passwordHash, now);
    },

    async reserveAttempt(rules, nowMs, windowMs) {
      return reserve.immediate(rules, nowMs, windowMs);
    },
    async releaseAttempt(id) {
      db.prepare("DELETE FROM auth_attempts WHERE reservation = ?").run(id);
    },
    async clearAttempts(subject) {
      db.prepare("DELETE FROM auth_attempts WHERE subject = ?").run(subject);
    },

    async deleteTenant(tenantId) {
      return deleteTenant(tenantId);
    },
  };
}
