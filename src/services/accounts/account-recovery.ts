// Email verification, password reset and workspace deletion. Each operation takes its
// dependencies first; the mails and the throttle subjects come from account-model.ts.
import { sha256Hex, tenantOf, type Principal } from "../auth/auth.js";
import { badRequest, conflict, unavailable, ValidationError } from "../errors.js";
import {
  MAIL_LIMIT,
  MAIL_WINDOW_MS,
  RESET_TOKEN_TTL_MS,
  ThrottledError,
  VERIFY_TOKEN_TTL_MS,
  emailKey,
  hashPassword,
  plausibleToken,
  resetMail,
  subject,
  tokenRow,
  verificationMail,
  waitText,
  type AccountDeps,
} from "./account-types.js";

export async function verifyEmail(deps: Pick<AccountDeps, "store" | "now">, token: string): Promise<{ detail: string }> {
  const r = plausibleToken(token) ? await deps.store.accounts.verifyEmailWithToken(sha256Hex(token), deps.now().toISOString()) : { status: "invalid" as const };
  if (r.status === "expired") {
    throw badRequest("This verification link has expired (links are valid for 24 hours). Sign in and request a new one with POST /auth/resend-verification.");
  }
  if (r.status !== "ok") {
    throw badRequest("This verification link is not valid or has already been used. Sign in and request a new one with POST /auth/resend-verification.");
  }
  return { detail: `The email address ${r.user.email} is verified.` };
}

/**
 * Any credentials of a signed-up workspace: a session resends to its user, an API key (or the
 * operator acting in the tenant) to the workspace owner.
 */
export async function resendVerification(deps: AccountDeps, p: Principal): Promise<{ detail: string }> {
  const tenant = tenantOf(p);
  const user = p.userId ? await deps.store.accounts.getUser(p.userId) : await deps.store.accounts.ownerOf(tenant.id);
  if (!user) throw conflict("This workspace was created by the operator and has no email address to verify.");
  if (user.email_verified_at) throw conflict(`The email address ${p.userId ? user.email : "of the workspace owner"} is already verified; nothing to resend.`);
  const at = deps.now();
  const r = await deps.store.accounts.reserveAttempt([{ subject: subject("mail-verify", user.id), limit: MAIL_LIMIT }], at.getTime(), MAIL_WINDOW_MS);
  if (!r.ok) {
    const wait = Math.max(1, r.retryAtMs - at.getTime());
    throw new ThrottledError(`${MAIL_LIMIT} verification emails were sent in the last hour. Check your spam folder, or try again ${waitText(wait)}.`, Math.ceil(wait / 1000));
  }
  const v = tokenRow(user, "verify_email", VERIFY_TOKEN_TTL_MS, at);
  await deps.store.accounts.issueToken(v.row);
  try {
    await deps.mailer.send(verificationMail(deps, user, tenant.name, v.token));
  } catch (err) {
    deps.log.error({ err, user: user.id }, "verification mail failed");
    throw unavailable("The verification email could not be sent right now. Try again in a few minutes.");
  }
  // An API key holder is not necessarily the owner: do not show them the owner's address.
  return { detail: `A new verification link was sent to ${p.userId ? user.email : "the workspace owner's email address"}. It is valid for 24 hours; earlier links no longer work.` };
}

/**
 * Always the same answer, and the work that differs (building and sending the mail) happens
 * after the response, so neither the body nor the timing tells whether the address exists.
 */
export async function forgotPassword(deps: AccountDeps, email: string): Promise<{ detail: string }> {
  const detail = "If an account exists for that email address, a link to reset the password is on its way. The link is valid for 1 hour.";
  const key = emailKey(email);
  const at = deps.now();
  const user = await deps.store.accounts.findUserByEmail(key);
  // Counted for unknown addresses too, so the limit itself reveals nothing.
  const r = await deps.store.accounts.reserveAttempt([{ subject: subject("mail-reset", key), limit: MAIL_LIMIT }], at.getTime(), MAIL_WINDOW_MS);
  if (!user || !r.ok) {
    if (user && !r.ok) deps.log.warn({ user: user.id }, "password reset mail suppressed: hourly limit reached");
    return { detail };
  }
  const t = tokenRow(user, "reset_password", RESET_TOKEN_TTL_MS, at);
  await deps.store.accounts.issueToken(t.row);
  deps.mailer.sendInBackground(resetMail(deps, user, t.token));
  return { detail };
}

export async function resetPassword(deps: AccountDeps, body: { token: string; password: string }): Promise<{ detail: string }> {
  if (!plausibleToken(body.token)) throw badRequest("This password reset link is not valid or has already been used. Request a new one with POST /auth/forgot-password.");
  const passwordHash = await hashPassword(body.password);
  const r = await deps.store.accounts.resetPasswordWithToken(sha256Hex(body.token), passwordHash, deps.now().toISOString());
  if (r.status === "expired") throw badRequest("This password reset link has expired (links are valid for 1 hour). Request a new one with POST /auth/forgot-password.");
  if (r.status !== "ok") throw badRequest("This password reset link is not valid or has already been used. Request a new one with POST /auth/forgot-password.");
  // Whoever locked the account with wrong guesses no longer keeps its owner out.
  await deps.store.accounts.clearAttempts(subject("login-email", r.user.email_key));
  deps.log.info({ user: r.user.id }, "password reset; all sessions ended");
  await deps.audit?.record({ tenantId: r.user.tenant_id, actor: { actor_type: "reset_link", actor_id: r.user.id }, action: "password.reset", target: { type: "user", id: r.user.id } });
  return { detail: "Your password has been changed and every session has been signed out. Sign in with the new password." };
}

/** Deletes the caller's workspace and everything in it, once `confirm` equals its slug exactly. */
export async function deleteWorkspace(deps: AccountDeps, p: Principal, confirm: string): Promise<void> {
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
  await deps.store.accounts.deleteTenant(tenant.id);
  deps.log.info({ tenant: tenant.id }, "workspace deleted");
  await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "workspace.deleted", target: { type: "tenant", id: tenant.id }, detail: { slug: tenant.slug, name: tenant.name } });
}
