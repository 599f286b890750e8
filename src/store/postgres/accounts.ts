// Accounts on PostgreSQL: the same atomic units as sqlite/accounts.ts, each one transaction. The
// sign-in throttle's attempts are in account-attempts.ts.
import { isUniqueViolation, transaction, type Client, type Pool } from "./db.js";
import { UniqueViolation, type TenantRow } from "../types.js";
import type { AccountStore, AccountTokenRow, SessionRow, TokenPurpose, TokenRedemption, UserRow } from "../account-types.js";
import { attemptMethods } from "./account-attempts.js";
import { TENANT_COLS } from "./rows.js";

const USER_COLS = "id, tenant_id, email, email_key, password_hash, role, email_verified_at, created_at, password_changed_at";
const SESSION_COLS = "id, token_hash, user_id, tenant_id, created_at, expires_at";
const TOKEN_COLS = "id, token_hash, user_id, purpose, created_at, expires_at, used_at";

async function insertUser(c: Client, u: UserRow): Promise<void> {
  await c.query(`INSERT INTO users (${USER_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
    u.id,
    u.tenant_id,
    u.email,
    u.email_key,
    u.password_hash,
    u.role,
    u.email_verified_at,
    u.created_at,
    u.password_changed_at,
  ]);
}

async function insertSession(c: Pool | Client, s: SessionRow): Promise<void> {
  await c.query(`INSERT INTO sessions (${SESSION_COLS}) VALUES ($1, $2, $3, $4, $5, $6)`, [s.id, s.token_hash, s.user_id, s.tenant_id, s.created_at, s.expires_at]);
}

async function insertToken(c: Client, t: AccountTokenRow): Promise<void> {
  await c.query(`INSERT INTO account_tokens (${TOKEN_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [t.id, t.token_hash, t.user_id, t.purpose, t.created_at, t.expires_at, t.used_at]);
}

// Retired tokens are deleted rather than flagged: a superseded link is as invalid as an unknown one.
async function retireTokens(c: Client, userId: string, purpose: TokenPurpose): Promise<void> {
  await c.query("DELETE FROM account_tokens WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL", [userId, purpose]);
}

async function userById(c: Pool | Client, id: string): Promise<UserRow | null> {
  return (await c.query<UserRow>(`SELECT ${USER_COLS} FROM users WHERE id = $1`, [id])).rows[0] ?? null;
}

/** Marks the token used if it is live (row-locked, so two redemptions cannot both succeed). */
async function redeem(c: Client, tokenHash: string, purpose: TokenPurpose, now: string): Promise<TokenRedemption> {
  const t = (await c.query<AccountTokenRow>(`SELECT ${TOKEN_COLS} FROM account_tokens WHERE token_hash = $1 AND purpose = $2 FOR UPDATE`, [tokenHash, purpose])).rows[0];
  if (!t || t.used_at) return { status: "invalid" };
  if (t.expires_at <= now) return { status: "expired" };
  const marked = await c.query("UPDATE account_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL", [now, t.id]);
  if (marked.rowCount !== 1) return { status: "invalid" };
  const user = await userById(c, t.user_id);
  return user ? { status: "ok", user } : { status: "invalid" };
}

/** The verified address of an owner opens the workspace's ingest gate. */
async function verifyOwnerTenant(c: Client, user: UserRow): Promise<void> {
  if (user.role === "owner") await c.query("UPDATE tenants SET verified = TRUE WHERE id = $1", [user.tenant_id]);
}

/** Tenant, owner, session and token in one transaction; a taken email or slug says which. */
async function createSignup(pool: Pool, x: Parameters<AccountStore["createSignup"]>[0]): Promise<void> {
  try {
    await transaction(pool, async (c) => {
      const t = x.tenant;
      await c.query(`INSERT INTO tenants (${TENANT_COLS}) VALUES ($1, $2, $3, $4, $5, $6)`, [t.id, t.name, t.slug, t.plan, t.verified, t.created_at]);
      await insertUser(c, x.user);
      await insertSession(c, x.session);
      if (x.token) await insertToken(c, x.token);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      // Citus passes a worker's unique violation on without the constraint field: its message
      // names the shard's constraint (users_email_key_102045)
      const e = err as { constraint?: unknown; message?: string };
      const constraint = String(e.constraint ?? /unique constraint "([^"]+)"/.exec(e.message ?? "")?.[1] ?? "");
      throw new UniqueViolation(constraint.startsWith("users_email_key") ? "email" : constraint.startsWith("tenants_slug") ? "slug" : "unknown");
    }
    throw err;
  }
}

function userMethods(pool: Pool): Pick<AccountStore, "createSignup" | "emailTaken" | "findUserByEmail" | "getUser" | "ownerOf" | "deleteTenant"> {
  return {
    async createSignup(x) {
      await createSignup(pool, x);
    },
    async emailTaken(emailKey) {
      return ((await pool.query("SELECT 1 FROM users WHERE email_key = $1", [emailKey])).rowCount ?? 0) > 0;
    },
    async findUserByEmail(emailKey) {
      return (await pool.query<UserRow>(`SELECT ${USER_COLS} FROM users WHERE email_key = $1`, [emailKey])).rows[0] ?? null;
    },
    async getUser(id) {
      return userById(pool, id);
    },
    async ownerOf(tenantId) {
      const r = await pool.query<UserRow>(`SELECT ${USER_COLS} FROM users WHERE tenant_id = $1 AND role = 'owner' ORDER BY created_at LIMIT 1`, [tenantId]);
      return r.rows[0] ?? null;
    },
    async deleteTenant(tenantId) {
      // every row of the tenant follows the tenant row by ON DELETE CASCADE (vectors from chunks,
      // lexical statistics included); the audit trail stays until retention prunes it
      return ((await pool.query("DELETE FROM tenants WHERE id = $1", [tenantId])).rowCount ?? 0) > 0;
    },
  };
}

function sessionMethods(pool: Pool): Pick<AccountStore, "createSession" | "findSession" | "deleteSession" | "deleteExpiredSessions"> {
  return {
    async createSession(s) {
      await insertSession(pool, s);
    },
    async findSession(tokenHash, now) {
      const s = (await pool.query<SessionRow>(`SELECT ${SESSION_COLS} FROM sessions WHERE token_hash = $1`, [tokenHash])).rows[0];
      if (!s) return null;
      if (s.expires_at <= now) {
        await pool.query("DELETE FROM sessions WHERE id = $1", [s.id]);
        return null;
      }
      const user = await userById(pool, s.user_id);
      const tenant = (await pool.query<TenantRow>(`SELECT ${TENANT_COLS} FROM tenants WHERE id = $1`, [s.tenant_id])).rows[0];
      if (!user || !tenant) return null;
      return { session: s, user, tenant };
    },
    async deleteSession(tokenHash) {
      return ((await pool.query("DELETE FROM sessions WHERE token_hash = $1", [tokenHash])).rowCount ?? 0) > 0;
    },
    async deleteExpiredSessions(now) {
      return (await pool.query("DELETE FROM sessions WHERE expires_at <= $1", [now])).rowCount ?? 0;
    },
  };
}

function tokenMethods(pool: Pool): Pick<AccountStore, "issueToken" | "verifyEmailWithToken" | "resetPasswordWithToken"> {
  return {
    async issueToken(t) {
      await transaction(pool, async (c) => {
        await retireTokens(c, t.user_id, t.purpose);
        await insertToken(c, t);
      });
    },
    async verifyEmailWithToken(tokenHash, now) {
      return transaction(pool, async (c): Promise<TokenRedemption> => {
        const r = await redeem(c, tokenHash, "verify_email", now);
        if (r.status !== "ok") return r;
        await c.query("UPDATE users SET email_verified_at = coalesce(email_verified_at, $1) WHERE id = $2", [now, r.user.id]);
        await verifyOwnerTenant(c, r.user);
        await retireTokens(c, r.user.id, "verify_email");
        return { status: "ok", user: (await userById(c, r.user.id))! };
      });
    },
    async resetPasswordWithToken(tokenHash, passwordHash, now) {
      return transaction(pool, async (c): Promise<TokenRedemption> => {
        const r = await redeem(c, tokenHash, "reset_password", now);
        if (r.status !== "ok") return r;
        await c.query(
          "UPDATE users SET password_hash = $1, password_changed_at = $2, email_verified_at = coalesce(email_verified_at, $2) WHERE id = $3",
          [passwordHash, now, r.user.id],
        );
        await verifyOwnerTenant(c, r.user);
        await c.query("DELETE FROM sessions WHERE user_id = $1", [r.user.id]);
        await retireTokens(c, r.user.id, "reset_password");
        await retireTokens(c, r.user.id, "verify_email");
        return { status: "ok", user: (await userById(c, r.user.id))! };
      });
    },
  };
}

export function pgAccounts(pool: Pool): AccountStore {
  return { ...userMethods(pool), ...sessionMethods(pool), ...tokenMethods(pool), ...attemptMethods(pool) };
}
