// Emailed one-time tokens (email verification, password reset). Redeeming one and applying its
// effect share a transaction, so a token works exactly once even when two requests race.
import type { DB } from "./db.js";
import type { AccountStore, AccountTokenRow, TokenPurpose, TokenRedemption, UserRow } from "../account-types.js";
import { USER_COLS } from "./account-users.js";

type TokenMethods = Pick<AccountStore, "issueToken" | "verifyEmailWithToken" | "resetPasswordWithToken">;

export const INSERT_TOKEN =
  "INSERT INTO account_tokens (id, token_hash, user_id, purpose, created_at, expires_at, used_at) VALUES (@id, @token_hash, @user_id, @purpose, @created_at, @expires_at, @used_at)";

export function tokenMethods(db: DB): TokenMethods {
  const insertToken = db.prepare(INSERT_TOKEN);
  // Retired tokens are deleted rather than flagged: a superseded link is as invalid as an unknown one.
  const retireTokens = db.prepare("DELETE FROM account_tokens WHERE user_id = ? AND purpose = ? AND used_at IS NULL");
  const userById = db.prepare(`SELECT ${USER_COLS} FROM users WHERE id = ?`);
  const redeem = tokenRedeemer(db);

  const issueToken = db.transaction((t: AccountTokenRow) => {
    retireTokens.run(t.user_id, t.purpose);
    insertToken.run(t);
  });

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

  return {
    async issueToken(t) {
      issueToken(t);
    },
    async verifyEmailWithToken(tokenHash, now) {
      return verifyEmail(tokenHash, now);
    },
    async resetPasswordWithToken(tokenHash, passwordHash, now) {
      return resetPassword(tokenHash, passwordHash, now);
    },
  };
}

/** Marks the token used if it is live; the caller's effect runs in the same transaction. */
function tokenRedeemer(db: DB) {
  const tokenByHash = db.prepare("SELECT * FROM account_tokens WHERE token_hash = ? AND purpose = ?");
  const markUsed = db.prepare("UPDATE account_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL");
  const userById = db.prepare(`SELECT ${USER_COLS} FROM users WHERE id = ?`);
  return (tokenHash: string, purpose: TokenPurpose, now: string): TokenRedemption => {
    const t = tokenByHash.get(tokenHash, purpose) as AccountTokenRow | undefined;
    if (!t || t.used_at) return { status: "invalid" };
    if (t.expires_at <= now) return { status: "expired" };
    if (markUsed.run(now, t.id).changes !== 1) return { status: "invalid" };
    const user = userById.get(t.user_id) as UserRow | undefined;
    return user ? { status: "ok", user } : { status: "invalid" };
  };
}
