// Console users in SQLite: the lookups sign-in and the account pages need.
import type { DB } from "./db.js";
import type { AccountStore, UserRow } from "../account-types.js";

type UserMethods = Pick<AccountStore, "emailTaken" | "findUserByEmail" | "getUser" | "ownerOf">;

export const USER_COLS = "id, tenant_id, email, email_key, password_hash, role, email_verified_at, created_at, password_changed_at";

export const INSERT_USER = `INSERT INTO users (${USER_COLS}) VALUES (@id, @tenant_id, @email, @email_key, @password_hash, @role, @email_verified_at, @created_at, @password_changed_at)`;

export function userMethods(db: DB): UserMethods {
  const userById = db.prepare(`SELECT ${USER_COLS} FROM users WHERE id = ?`);
  return {
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
  };
}
