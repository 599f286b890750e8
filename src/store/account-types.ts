// Storage contract of accounts (users, console sessions, emailed tokens, login throttle) and of
// the query quota counter. Methods are coarse: each one is one use case and one atomic unit, so
// a PostgreSQL implementation can make each a transaction too.
import type { TenantRow } from "./tenant-types.js";
import type { Json } from "./content-types.js";

export type Role = "owner" | "member";

export interface UserRow {
  id: string;
  tenant_id: string;
  /** as typed at signup */
  email: string;
  /** lower-cased email, unique across the deployment */
  email_key: string;
  /** argon2id PHC string */
  password_hash: string;
  role: Role;
  email_verified_at: string | null;
  created_at: string;
  password_changed_at: string | null;
}

export interface SessionRow {
  id: string;
  /** hex SHA-256 of the cookie value; the token itself is never stored */
  token_hash: string;
  user_id: string;
  tenant_id: string;
  created_at: string;
  expires_at: string;
}

export type TokenPurpose = "verify_email" | "reset_password";

export interface AccountTokenRow {
  id: string;
  token_hash: string;
  user_id: string;
  purpose: TokenPurpose;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionContext {
  session: SessionRow;
  user: UserRow;
  tenant: TenantRow;
}

/** Outcome of redeeming an emailed token: the user it belonged to, or why it cannot be used. */
export type TokenRedemption = { status: "ok"; user: UserRow } | { status: "invalid" } | { status: "expired" };

/** One subject of the login throttle and how many attempts it may have in the window. */
export interface ThrottleRule {
  subject: string;
  limit: number;
}

export type AttemptReservation = { ok: true; id: string } | { ok: false; subject: string; retryAtMs: number };

export interface AccountStore {
  /**
   * Tenant, owner, first session and (optional) verification token in one transaction.
   * Throws UniqueViolation("email") or UniqueViolation("slug"); then nothing is written.
   */
  createSignup(x: { tenant: TenantRow; user: UserRow; session: SessionRow; token: AccountTokenRow | null }): Promise<void>;
  emailTaken(emailKey: string): Promise<boolean>;
  findUserByEmail(emailKey: string): Promise<UserRow | null>;
  getUser(id: string): Promise<UserRow | null>;
  /** the signed-up owner of a workspace; null for operator-made tenants */
  ownerOf(tenantId: string): Promise<UserRow | null>;

  createSession(s: SessionRow): Promise<void>;
  /** the live session with its user and tenant; expired sessions are deleted and give null */
  findSession(tokenHash: string, now: string): Promise<SessionContext | null>;
  deleteSession(tokenHash: string): Promise<boolean>;
  deleteExpiredSessions(now: string): Promise<number>;

  /** stores a token and retires the user's unused tokens of the same purpose */
  issueToken(t: AccountTokenRow): Promise<void>;
  /** redeems a verification token and marks the user (and, for the owner, the tenant) verified, atomically */
  verifyEmailWithToken(tokenHash: string, now: string): Promise<TokenRedemption>;
  /**
   * Redeems a reset token, sets the password, ends every session of the user and marks the email
   * verified (the token proves control of the mailbox), atomically.
   */
  resetPasswordWithToken(tokenHash: string, passwordHash: string, now: string): Promise<TokenRedemption>;

  /**
   * Records an attempt for every subject unless one of them already holds `limit` attempts in
   * the window; check and insert are one transaction, so parallel requests cannot slip past.
   */
  reserveAttempt(rules: ThrottleRule[], nowMs: number, windowMs: number): Promise<AttemptReservation>;
  /** forgets a reserved attempt (it succeeded) */
  releaseAttempt(id: string): Promise<void>;
  clearAttempts(subject: string): Promise<void>;

  /** removes the tenant with everything it owns, index entries included, in one transaction */
  deleteTenant(tenantId: string): Promise<boolean>;
}

export interface QuotaStore {
  /**
   * Adds n to the tenant's query counter of `period` unless that would pass `limit` (null =
   * unlimited), in one statement. Returns whether it was added and the count after the call.
   */
  consumeQueries(tenantId: string, period: string, n: number, limit: number | null): Promise<{ ok: boolean; used: number }>;
  /**
   * A search's admission, in one statement: the tenant's row, the collection's scope, and n
   * queries counted when both exist, the tenant is still on `plan` and the count stays within
   * `limit` (null = unlimited). A tenant found on another plan is counted nothing: the caller asks
   * again with that plan's limit.
   */
  admitQueries(tenantId: string, collectionId: string, period: string, n: number, plan: string, limit: number | null): Promise<QueryAdmission>;
}

/** What a search's admission found (QuotaStore.admitQueries). */
export interface QueryAdmission {
  /** the tenant's row as it is now; null when the tenant no longer exists */
  tenant: TenantRow | null;
  /** the collection's scope; null when the tenant has no such collection */
  scope: { settings: Json; data_source_ids: string[]; language: string | null } | null;
  /** whether the n queries were counted */
  ok: boolean;
  /** the count after the call when counted, else as found */
  used: number;
}
