// Account sign-up and sign-in sessions: signup, login (with its throttle), logout and the session
// resolver the auth service calls for a cookie. Each operation takes its dependencies first.
import type { TenantRow } from "../../store/types.js";
import { UniqueViolation } from "../../store/types.js";
import type { UserRow } from "../../store/account-types.js";
import { newId } from "../../store/ids.js";
import { sha256Hex, type SessionResolver } from "../auth/auth.js";
import { conflict, unauthorized, ValidationError } from "../errors.js";
import { MAX_SLUG_RETRIES, slugify, uniqueSlug } from "../collections/slug.js";
import {
  LOGIN_LIMIT_PER_ADDRESS,
  LOGIN_LIMIT_PER_EMAIL,
  LOGIN_WINDOW_MS,
  ROLE_SCOPES,
  ThrottledError,
  VERIFY_TOKEN_TTL_MS,
  accountOut,
  emailKey,
  hashPassword,
  passwordMatches,
  plausibleToken,
  sessionRow,
  subject,
  tokenRow,
  userOut,
  verificationMail,
  waitText,
  type AccountDeps,
  type StartedSession,
  type UserOut,
} from "./account-types.js";

export async function signup(deps: AccountDeps, body: { email: string; password: string; workspace_name: string }): Promise<StartedSession> {
  if (body.workspace_name.trim() === "") {
    throw new ValidationError([
      { type: "value_error", loc: ["body", "workspace_name"], msg: "The workspace name must contain at least one visible character.", input: body.workspace_name },
    ]);
  }
  const key = emailKey(body.email);
  const taken = `An account with the email ${body.email} already exists. Sign in, or reset the password if you forgot it.`;
  if (await deps.store.accounts.emailTaken(key)) throw conflict(taken);
  const passwordHash = await hashPassword(body.password);
  const at = deps.now();
  const iso = at.toISOString();
  // The derived slug can be taken between the check and the insert by a concurrent signup;
  // then the whole transaction rolls back and we derive the next one.
  for (let attempt = 0; ; attempt++) {
    const slug = await uniqueSlug(slugify(body.workspace_name), (s) => deps.store.tenants.slugExists(s));
    const tenant: TenantRow = {
      id: newId("ten"),
      name: body.workspace_name,
      slug,
      plan: deps.config.defaultPlan,
      verified: !deps.config.requireEmailVerification,
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
    const s = sessionRow(deps, user, at);
    const v = tokenRow(user, "verify_email", VERIFY_TOKEN_TTL_MS, at);
    try {
      await deps.store.accounts.createSignup({ tenant, user, session: s.row, token: v.row });
    } catch (err) {
      if (err instanceof UniqueViolation && err.field === "email") throw conflict(taken);
      if (err instanceof UniqueViolation && err.field === "slug" && attempt < MAX_SLUG_RETRIES) continue;
      throw err;
    }
    // Signup succeeds even when mail is down: the owner can ask for a new link later.
    deps.mailer.sendInBackground(verificationMail(deps, user, tenant.name, v.token));
    deps.log.info({ tenant: tenant.id, user: user.id }, "workspace signed up");
    return { account: accountOut(user, tenant), token: s.token, expiresAt: s.expiresAt };
  }
}

export async function login(deps: AccountDeps, body: { email: string; password: string }, ctx: { address: string }): Promise<StartedSession> {
  const key = emailKey(body.email);
  const emailSubject = subject("login-email", key);
  const at = deps.now();
  // The attempt is counted before the password is checked, so parallel guesses cannot all
  // pass the check; a successful attempt is forgotten again.
  const r = await deps.store.accounts.reserveAttempt(
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
  const user = await deps.store.accounts.findUserByEmail(key);
  const ok = user ? await passwordMatches(user.password_hash, body.password) : (await passwordMatches(await deps.dummyHash(), body.password), false);
  if (!user || !ok) {
    // only a known account's tenant has a trail to write to; unknown emails stay unlogged
    if (user) {
      await deps.audit?.record({ tenantId: user.tenant_id, actor: { actor_type: "anonymous", actor_id: null }, action: "login.failed", target: { type: "user", id: user.id }, address: ctx.address });
    }
    throw unauthorized("The email address or the password is not correct.");
  }
  const tenant = await deps.store.tenants.get(user.tenant_id);
  if (!tenant) throw unauthorized("The email address or the password is not correct.");
  await deps.store.accounts.releaseAttempt(r.id);
  await deps.store.accounts.clearAttempts(emailSubject);
  const s = sessionRow(deps, user, at);
  await deps.store.accounts.createSession(s.row);
  // Expired sessions are otherwise only removed when presented; sign-ins sweep the rest.
  await deps.store.accounts.deleteExpiredSessions(at.toISOString());
  await deps.audit?.record({ tenantId: tenant.id, actor: { actor_type: "session", actor_id: user.id }, action: "login.succeeded", target: { type: "user", id: user.id }, address: ctx.address });
  return { account: accountOut(user, tenant), token: s.token, expiresAt: s.expiresAt };
}

/** Ends the session of this cookie value; false when there was none. */
export async function logout(deps: Pick<AccountDeps, "store">, token: string | undefined): Promise<boolean> {
  if (!token || !plausibleToken(token)) return false;
  return deps.store.accounts.deleteSession(sha256Hex(token));
}

/** The resolver createAuthService calls for a session cookie. */
export async function resolveSession(deps: Pick<AccountDeps, "store" | "now">, token: string): ReturnType<SessionResolver> {
  if (!plausibleToken(token)) return null;
  const ctx = await deps.store.accounts.findSession(sha256Hex(token), deps.now().toISOString());
  if (!ctx) return null;
  return {
    tenant: ctx.tenant,
    scopes: ROLE_SCOPES[ctx.user.role],
    userId: ctx.user.id,
    role: ctx.user.role,
    sessionId: ctx.session.id,
  };
}

export async function accountUser(deps: Pick<AccountDeps, "store">, userId: string): Promise<UserOut | null> {
  const u = await deps.store.accounts.getUser(userId);
  return u ? userOut(u) : null;
}
