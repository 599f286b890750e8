// Shared shapes of the account operations: constants, output types, the dependencies and the
// small helpers (rows, tokens, mails) that account-sessions.ts and account-recovery.ts both use.
import { randomBytes } from "node:crypto";
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import type { Logger } from "pino";
import type { Scope, Store, TenantRow } from "../../store/types.js";
import type { AccountTokenRow, Role, SessionRow, TokenPurpose, UserRow } from "../../store/account-types.js";
import { newId } from "../../store/ids.js";
import { sha256Hex } from "../auth/auth.js";
import { ServiceError } from "../errors.js";
import { tenantOut, type TenantOut } from "../tenants/tenants.js";
import type { Mailer } from "./mailer.js";
import type { AuditService } from "../tenants/audit.js";

export const ROLE_SCOPES: Record<Role, Scope[]> = { owner: ["admin"], member: ["ingest"] };

export const VERIFY_TOKEN_TTL_MS = 24 * 3_600_000;
export const RESET_TOKEN_TTL_MS = 3_600_000;

/** Failed-login throttle: per email and per client address, over a sliding window. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_LIMIT_PER_EMAIL = 5;
// An office or a carrier NAT shares one address, so the address limit is looser than the email one.
export const LOGIN_LIMIT_PER_ADDRESS = 20;
/** Emails a person can trigger (reset links, resent verifications) per address/user and hour. */
export const MAIL_WINDOW_MS = 3_600_000;
export const MAIL_LIMIT = 5;

export interface UserOut {
  id: string;
  email: string;
  email_verified: boolean;
  created_at: string;
}

export interface AccountOut {
  user: UserOut;
  tenant: TenantOut;
  role: string;
  scopes: string[];
  plan: string;
}

export interface StartedSession {
  account: AccountOut;
  /** the cookie value; shown to the client once, stored only as a hash */
  token: string;
  expiresAt: Date;
}

export interface AccountConfig {
  publicUrl: string;
  requireEmailVerification: boolean;
  defaultPlan: string;
  sessionTtlDays: number;
}

/** 429 of the login throttle; the route turns retryAfterSeconds into a Retry-After header. */
export class ThrottledError extends ServiceError {
  constructor(
    message: string,
    public readonly retryAfterSeconds: number,
  ) {
    super("quota_exceeded", message);
  }
}

export const emailKey = (email: string) => email.trim().toLowerCase();

export const userOut = (u: UserRow): UserOut => ({
  id: u.id,
  email: u.email,
  email_verified: u.email_verified_at !== null,
  created_at: u.created_at,
});

export const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Tokens are base64url of 32 bytes with a short prefix; anything else is not worth a lookup. */
export const plausibleToken = (t: string) => t.length >= 20 && t.length <= 200 && /^[A-Za-z0-9_-]+$/.test(t);

export function waitText(ms: number): string {
  const min = Math.ceil(ms / 60_000);
  return min <= 1 ? "in a minute" : `in ${min} minutes`;
}

export interface AccountServiceDeps {
  store: Store;
  mailer: Mailer;
  log: Logger;
  config: AccountConfig;
  /** removes what cannot cascade (index entries, stored files) before the tenant row goes */
  purgeTenantContent: (tenantId: string) => Promise<void>;
  audit?: Pick<AuditService, "record">;
  now?: () => Date;
}

/** The dependencies with the clock resolved and the one piece of state the operations share. */
export interface AccountDeps extends AccountServiceDeps {
  now: () => Date;
  /** a hash of a random password, for unknown emails to be verified against */
  dummyHash: () => Promise<string>;
}

// argon2id with the library defaults (m=19 MiB, t=2, p=1), the OWASP-recommended minimum.
export const hashPassword = (pw: string) => argonHash(pw);

export async function passwordMatches(phc: string, pw: string): Promise<boolean> {
  try {
    return await argonVerify(phc, pw);
  } catch {
    return false;
  }
}

/**
 * An unknown email still costs one argon2 verification, so response time does not reveal which
 * addresses have accounts. The hash is computed up front so the first unknown-email login is not
 * the slow (hash + verify) one.
 */
export function accountDeps(deps: AccountServiceDeps): AccountDeps {
  let dummy: Promise<string> | null = null;
  const dummyHash = () => (dummy ??= hashPassword(randomBytes(16).toString("hex")));
  void dummyHash().catch((err: unknown) => deps.log.error({ err }, "argon2 is not working"));
  return { ...deps, now: deps.now ?? (() => new Date()), dummyHash };
}

export function accountOut(user: UserRow, tenant: TenantRow): AccountOut {
  return { user: userOut(user), tenant: tenantOut(tenant), role: user.role, scopes: ROLE_SCOPES[user.role], plan: tenant.plan };
}

export function sessionRow(deps: Pick<AccountDeps, "config">, user: UserRow, at: Date): { row: SessionRow; token: string; expiresAt: Date } {
  const token = newSecret("qs_");
  const expiresAt = new Date(at.getTime() + deps.config.sessionTtlDays * 86_400_000);
  return {
    token,
    expiresAt,
    row: { id: newId("ses"), token_hash: sha256Hex(token), user_id: user.id, tenant_id: user.tenant_id, created_at: at.toISOString(), expires_at: expiresAt.toISOString() },
  };
}

export function tokenRow(user: UserRow, purpose: TokenPurpose, ttlMs: number, at: Date): { row: AccountTokenRow; token: string } {
  const token = newSecret(purpose === "verify_email" ? "qv_" : "qr_");
  return {
    token,
    row: { id: newId("tok"), token_hash: sha256Hex(token), user_id: user.id, purpose, created_at: at.toISOString(), expires_at: new Date(at.getTime() + ttlMs).toISOString(), used_at: null },
  };
}

export function verificationMail(deps: Pick<AccountDeps, "config">, user: UserRow, workspace: string, token: string) {
  const link = `${deps.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
  return {
    to: user.email,
    subject: "Verify your email address for Quarry",
    text:
      `Confirm that ${user.email} is yours to start adding content to the workspace "${workspace}":\n\n` +
      `${link}\n\n` +
      `The link works once and expires in 24 hours. If you did not sign up for Quarry, ignore this message.\n`,
  };
}

export function resetMail(deps: Pick<AccountDeps, "config">, user: UserRow, token: string) {
  const link = `${deps.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
  return {
    to: user.email,
    subject: "Reset your Quarry password",
    text:
      `Someone asked to reset the password of the Quarry account ${user.email}. To choose a new password, open:\n\n` +
      `${link}\n\n` +
      `The link works once and expires in 1 hour. Setting a new password signs you out everywhere.\n` +
      `If you did not ask for this, ignore this message; your password stays as it is.\n`,
  };
}

/** A throttle subject; hashed so the attempts table holds no addresses. */
export const subject = (kind: string, value: string) => `${kind}:${sha256Hex(value)}`;
