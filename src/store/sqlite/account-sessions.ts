// Console sessions in SQLite. Only the token's hash is stored; an expired session is deleted the
// first time it is looked up, and deleteExpiredSessions sweeps the ones nobody looks up again.
import type { DB } from "./db.js";
import type { TenantRow } from "../types.js";
import type { AccountStore, SessionRow, UserRow } from "../account-types.js";
import { USER_COLS } from "./account-users.js";

interface RawTenant extends Omit<TenantRow, "verified"> {
  verified: number;
}

type SessionMethods = Pick<AccountStore, "createSession" | "findSession" | "deleteSession" | "deleteExpiredSessions">;

export const INSERT_SESSION =
  "INSERT INTO sessions (id, token_hash, user_id, tenant_id, created_at, expires_at) VALUES (@id, @token_hash, @user_id, @tenant_id, @created_at, @expires_at)";

export function sessionMethods(db: DB): SessionMethods {
  const insertSession = db.prepare(INSERT_SESSION);
  const userById = db.prepare(`SELECT ${USER_COLS} FROM users WHERE id = ?`);
  return {
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
  };
}
