// Accounts: signup, sign-in sessions, email verification, password reset and workspace deletion.
// A signed-up workspace has one owner (role `owner`, scopes ["admin"]); the console carries an
// opaque session token in a cookie, of which only the SHA-256 is stored.
import { randomBytes } from "node:crypto";
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import type { Logger } from "pino";
import type { Scope, Store, TenantRow } from "../store/types.js";
import { UniqueViolation } from "../store/types.js";
import type { AccountTokenRow, Role, SessionRow, TokenPurpose, UserRow } from "../store/account-types.js";
import { newId } from "../store/ids.js";
import { sha256Hex, tenantOf, type Principal, type SessionResolver } from "./auth.js";
import { badRequest, conflict, ServiceError, unauthorized, unavailable, ValidationError } from "./errors.js";
import { MAX_SLUG_RETRIES, slugify, uniqueSlug } from "./slug.js";
import { tenantOut, type TenantOut } from "./tenants.js";
import type { Mailer } from "./mailer.js";
import type { AuditService } from "./audit.js";

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

const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Tokens are base64url of 32 bytes with a short prefix; anything else is not worth a lookup. */
const plausibleToken = (t: string) => t.length >= 20 && t.length <= 200 && /^[A-Za-z0-9_-]+$/.test(t);

function waitText(ms: number): string {
  const min = Math.ceil(ms / 60_000);
  return min <= 1 ? "in a minute" : `in ${min} minutes`;
}

export function createAccountService(deps: {
  store: Store;
  mailer: Mailer;
  log: Logger;
  config: AccountConfig;
  /** removes what cannot cascade (index entries, stored files) before the tenant row goes */
  purgeTenantContent: (tenantId: string) => Promise<void>;
  audit?: Pick<AuditService, "record">;
  now?: () => Date;
}) {
  const { store, mailer, config } = deps;
  const accounts = store.accounts;
  const now = deps.now ?? (() => new Date());
  const sessionTtlMs = config.sessionTtlDays * 86_400_000;

  // argon2id with the library defaults (m=19 MiB, t=2, p=1), the OWASP-recommended minimum.
  const hashPassword = (pw: string) => argonHash(pw);
  async function passwordMatches(phc: string, pw: string): Promise<boolean> {
    try {
      return await argonVerify(phc, pw);
    } catch {
      return false;
    }
  }
  // An unknown email still costs one argon2 verification, so response time does not reveal
  // which addresses have accounts.
  let dummyHash: Promise<string> | null = null;
  const dummy = () => (dummyHash ??= hashPassword(randomBytes(16).toString("hex")));
  // Computed up front so the first unknown-email login is not the slow (hash + verify) one.
  void dummy().catch((err: unknown) => deps.log.error({ err }, "argon2 is not working"));

  function accountOut(user: UserRow, tenant: TenantRow): AccountOut {
    return { user: userOut(user), tenant: tenantOut(tenant), role: user.role, scopes: ROLE_SCOPES[user.role], plan: tenant.plan };
  }

  function sessionRow(user: UserRow, at: Date): { row: SessionRow; token: string; expiresAt: Date } {
    const token = newSecret("qs_");
    const expiresAt = new Date(at.getTime() + sessionTtlMs);
    return {
      token,
      expiresAt,
      row: { id: newId("ses"), token_hash: sha256Hex(token), user_id: user.id, tenant_id: user.tenant_id, created_at: at.toISOString(), expires_at: expiresAt.toISOString() },
    };
  }

  function tokenRow(user: UserRow, purpose: TokenPurpose, ttlMs: number, at: Date): { row: AccountTokenRow; token: string } {
    const token = newSecret(purpose === "verify_email" ? "qv_" : "qr_");
    return {
      token,
      row: { id: newId("tok"), token_hash: sha256Hex(token), user_id: user.id, purpose, created_at: at.toISOString(), expires_at: new Date(at.getTime() + ttlMs).toISOString(), used_at: null },
    };
  }

  function verificationMail(user: UserRow, workspace: string, token: string) {
    const link = `${config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    return {
      to: user.email,
      subject: "Verify your email address for Quarry",
      text:
        `Confirm that ${user.email} is yours to start adding content to the workspace "${workspace}":\n\n` +
        `${link}\n\n` +
        `The link works once and expires in 24 hours. If you did not sign up for Quarry, ignore this message.\n`,
    };
  }

  function resetMail(user: UserRow, token: string) {
    const link = `${config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
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

  const subject = (kind: string, value: string) => `${kind}:${sha256Hex(value)}`;

  return {
    async signup(body: { email: string; password: string; workspace_name: string }): Promise<StartedSession> {
      if (body.workspace_name.trim() === "") {
        throw new ValidationError([
          { type: "value_error", loc: ["body", "workspace_name"], msg: "The workspace name must contain at least one visible character.", input: body.workspace_name },
        ]);
      }
      const key = emailKey(body.email);
      const taken = `An account with the email ${body.email} already exists. Sign in, or reset the password if you forgot it.`;
      if (await accounts.emailTaken(key)) throw conflict(taken);
      const passwordHash = await hashPassword(body.password);
      const at = now();
      const iso = at.toISOString();
      // The derived slug can be taken between the check and the insert by a concurrent signup;
      // then the whole transaction rolls back and we derive the next one.
      for (let attempt = 0; ; attempt++) {
        const slug = await uniqueSlug(slugify(body.workspace_name), (s) => store.tenants.slugExists(s));
        const tenant: TenantRow = {
          id: newId("ten"),
          name: body.workspace_name,
          slug,
          plan: config.defaultPlan,
          verified: !config.requireEmailVerification,
          created_at: iso,
        };
        const user: UserRow = {
          id: newId("usr"),
          tenant_id: tenant.id,
          email: body.email,
          email_key: key,
          password_hash: passwordHash,
          role: "owner",
          email_verified_at: null,
          created_at: iso,
          password_changed_at: null,
        };
        const s = sessionRow(user, at);
        const v = tokenRow(user, "verify_email", VERIFY_TOKEN_TTL_MS, at);
        try {
          await accounts.createSignup({ tenant, user, session: s.row, token: v.row });
        } catch (err) {
          if (err instanceof UniqueViolation && err.field === "email") throw conflict(taken);
          if (err instanceof UniqueViolation && err.field === "slug" && attempt < MAX_SLUG_RETRIES) continue;
          throw err;
        }
        // Signup succeeds even when mail is down: the owner can ask for a new link later.
        mailer.sendInBackground(verificationMail(user, tenant.name, v.token));
        deps.log.info({ tenant: tenant.id, user: user.id }, "workspace signed up");
        return { account: accountOut(user, tenant), token: s.token, expiresAt: s.expiresAt };
      }
    },

    async login(body: { email: string; password: string }, ctx: { address: string }): Promise<StartedSession> {
      const key = emailKey(body.email);
      const emailSubject = subject("login-email", key);
      const at = now();
      // The attempt is counted before the password is checked, so parallel guesses cannot all
      // pass the check; a successful attempt is forgotten again.
      const r = await accounts.reserveAttempt(
        [
          { subject: emailSubject, limit: LOGIN_LIMIT_PER_EMAIL },
          { subject: subject("login-addr", ctx.address), limit: LOGIN_LIMIT_PER_ADDRESS },
        ],
        at.getTime(),
        LOGIN_WINDOW_MS,
      );
      if (!r.ok) {
        const wait = Math.max(1, r.retryAtMs - at.getTime());
        const who = r.subject === emailSubject ? "for this email address" : "from your network address";
        throw new ThrottledError(
          `Too many failed sign-in attempts ${who}. Try again ${waitText(wait)} (after ${new Date(r.retryAtMs).toISOString()}), or reset your password.`,
          Math.ceil(wait / 1000),
        );
      }
      const user = await accounts.findUserByEmail(key);
      const ok = user ? await passwordMatches(user.password_hash, body.password) : (await passwordMatches(await dummy(), body.password), false);
      if (!user || !ok) {
        // only a known account's tenant has a trail to write to; unknown emails stay unlogged
        if (user) {
          await deps.audit?.record({ tenantId: user.tenant_id, actor: { actor_type: "anonymous", actor_id: null }, action: "login.failed", target: { type: "user", id: user.id }, address: ctx.address });
        }
        throw unauthorized("The email address or the password is not correct.");
      }
      const tenant = await store.tenants.get(user.tenant_id);
      if (!tenant) throw unauthorized("The email address or the password is not correct.");
      await accounts.releaseAttempt(r.id);
      await accounts.clearAttempts(emailSubject);
      const s = sessionRow(user, at);
      await accounts.createSession(s.row);
      // Expired sessions are otherwise only removed when presented; sign-ins sweep the rest.
      await accounts.deleteExpiredSessions(at.toISOString());
      await deps.audit?.record({ tenantId: tenant.id, actor: { actor_type: "session", actor_id: user.id }, action: "login.succeeded", target: { type: "user", id: user.id }, address: ctx.address });
      return { account: accountOut(user, tenant), token: s.token, expiresAt: s.expiresAt };
    },

    /** Ends the session of this cookie value; false when there was none. */
    async logout(token: string | undefined): Promise<boolean> {
      if (!token || !plausibleToken(token)) return false;
      return accounts.deleteSession(sha256Hex(token));
    },

    /** The resolver createAuthService calls for a session cookie. */
    resolveSession: (async (token: string) => {
      if (!plausibleToken(token)) return null;
      const ctx = await accounts.findSession(sha256Hex(token), now().toISOString());
      if (!ctx) return null;
      return {
        tenant: ctx.tenant,
        scopes: ROLE_SCOPES[ctx.user.role],
        userId: ctx.user.id,
        role: ctx.user.role,
        sessionId: ctx.session.id,
      };
    }) satisfies SessionResolver,

    async userOut(userId: string): Promise<UserOut | null> {
      const u = await accounts.getUser(userId);
      return u ? userOut(u) : null;
    },

    async verifyEmail(token: string): Promise<{ detail: string }> {
      const r = plausibleToken(token) ? await accounts.verifyEmailWithToken(sha256Hex(token), now().toISOString()) : { status: "invalid" as const };
      if (r.status === "expired") {
        throw badRequest("This verification link has expired (links are valid for 24 hours). Sign in and request a new one with POST /auth/resend-verification.");
      }
      if (r.status !== "ok") {
        throw badRequest("This verification link is not valid or has already been used. Sign in and request a new one with POST /auth/resend-verification.");
      }
      return { detail: `The email address ${r.user.email} is verified.` };
    },

    /**
     * Any credentials of a signed-up workspace: a session resends to its user, an API key (or the
     * operator acting in the tenant) to the workspace owner.
     */
    async resendVerification(p: Principal): Promise<{ detail: string }> {
      const tenant = tenantOf(p);
      const user = p.userId ? await accounts.getUser(p.userId) : await accounts.ownerOf(tenant.id);
      if (!user) throw conflict("This workspace was created by the operator and has no email address to verify.");
      if (user.email_verified_at) throw conflict(`The email address ${p.userId ? user.email : "of the workspace owner"} is already verified; nothing to resend.`);
      const at = now();
      const r = await accounts.reserveAttempt([{ subject: subject("mail-verify", user.id), limit: MAIL_LIMIT }], at.getTime(), MAIL_WINDOW_MS);
      if (!r.ok) {
        const wait = Math.max(1, r.retryAtMs - at.getTime());
        throw new ThrottledError(`${MAIL_LIMIT} verification emails were sent in the last hour. Check your spam folder, or try again ${waitText(wait)}.`, Math.ceil(wait / 1000));
      }
      const v = tokenRow(user, "verify_email", VERIFY_TOKEN_TTL_MS, at);
      await accounts.issueToken(v.row);
      try {
        await mailer.send(verificationMail(user, tenant.name, v.token));
      } catch (err) {
        deps.log.error({ err, user: user.id }, "verification mail failed");
        throw unavailable("The verification email could not be sent right now. Try again in a few minutes.");
      }
      // An API key holder is not necessarily the owner: do not show them the owner's address.
      return { detail: `A new verification link was sent to ${p.userId ? user.email : "the workspace owner's email address"}. It is valid for 24 hours; earlier links no longer work.` };
    },

    /**
     * Always the same answer, and the work that differs (building and sending the mail) happens
     * after the response, so neither the body nor the timing tells whether the address exists.
     */
    async forgotPassword(email: string): Promise<{ detail: string }> {
      const detail = "If an account exists for that email address, a link to reset the password is on its way. The link is valid for 1 hour.";
      const key = emailKey(email);
      const at = now();
      const user = await accounts.findUserByEmail(key);
      // Counted for unknown addresses too, so the limit itself reveals nothing.
      const r = await accounts.reserveAttempt([{ subject: subject("mail-reset", key), limit: MAIL_LIMIT }], at.getTime(), MAIL_WINDOW_MS);
      if (!user || !r.ok) {
        if (user && !r.ok) deps.log.warn({ user: user.id }, "password reset mail suppressed: hourly limit reached");
        return { detail };
      }
      const t = tokenRow(user, "reset_password", RESET_TOKEN_TTL_MS, at);
      await accounts.issueToken(t.row);
      mailer.sendInBackground(resetMail(user, t.token));
      return { detail };
    },

    async resetPassword(body: { token: string; password: string }): Promise<{ detail: string }> {
      if (!plausibleToken(body.token)) throw badRequest("This password reset link is not valid or has already been used. Request a new one with POST /auth/forgot-password.");
      const passwordHash = await hashPassword(body.password);
      const r = await accounts.resetPasswordWithToken(sha256Hex(body.token), passwordHash, now().toISOString());
      if (r.status === "expired") throw badRequest("This password reset link has expired (links are valid for 1 hour). Request a new one with POST /auth/forgot-password.");
      if (r.status !== "ok") throw badRequest("This password reset link is not valid or has already been used. Request a new one with POST /auth/forgot-password.");
      // Whoever locked the account with wrong guesses no longer keeps its owner out.
      await accounts.clearAttempts(subject("login-email", r.user.email_key));
      deps.log.info({ user: r.user.id }, "password reset; all sessions ended");
      await deps.audit?.record({ tenantId: r.user.tenant_id, actor: { actor_type: "reset_link", actor_id: r.user.id }, action: "password.reset", target: { type: "user", id: r.user.id } });
      return { detail: "Your password has been changed and every session has been signed out. Sign in with the new password." };
    },

    /** Deletes the caller's workspace and everything in it, once `confirm` equals its slug exactly. */
    async deleteWorkspace(p: Principal, confirm: string): Promise<void> {
      const tenant = tenantOf(p);
      if (confirm !== tenant.slug) {
        const hint = confirm.toLowerCase() === tenant.slug ? " The slug is case-sensitive." : "";
        throw new ValidationError([
          {
            type: "value_error",
            loc: ["body", "confirm"],
            msg: `To delete the workspace, send confirm equal to its slug '${tenant.slug}' exactly.${hint}`,
            input: confirm,
          },
        ]);
      }
      // Stored files first: if that fails, the tenant row (and with it every credential) still
      // exists and the owner can simply retry. The store then deletes the tenant with its rows and
      // index entries in one transaction.
      await deps.purgeTenantContent(tenant.id);
      await accounts.deleteTenant(tenant.id);
      deps.log.info({ tenant: tenant.id }, "workspace deleted");
      await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "workspace.deleted", target: { type: "tenant", id: tenant.id }, detail: { slug: tenant.slug, name: tenant.name } });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
