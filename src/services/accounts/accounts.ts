// Accounts: signup, sign-in sessions, email verification, password reset and workspace deletion.
// A signed-up workspace has one owner (role `owner`, scopes ["admin"]); the console carries an
// opaque session token in a cookie, of which only the SHA-256 is stored.
//
// The operations are named functions taking their dependencies: account-sessions.ts (signup,
// login, logout, the session resolver), account-recovery.ts (verification, password reset,
// workspace deletion), account-model.ts (shared shapes and helpers). createAccountService binds
// them to one set of dependencies for the runtime.
import type { SessionResolver, Principal } from "../auth/auth.js";
import { accountDeps, type AccountServiceDeps } from "./account-types.js";
import { accountUser, login, logout, resolveSession, signup } from "./account-sessions.js";
import { deleteWorkspace, forgotPassword, resendVerification, resetPassword, verifyEmail } from "./account-recovery.js";

export {
  LOGIN_LIMIT_PER_ADDRESS,
  LOGIN_LIMIT_PER_EMAIL,
  LOGIN_WINDOW_MS,
  MAIL_LIMIT,
  MAIL_WINDOW_MS,
  RESET_TOKEN_TTL_MS,
  ROLE_SCOPES,
  ThrottledError,
  VERIFY_TOKEN_TTL_MS,
  emailKey,
  userOut,
  type AccountConfig,
  type AccountOut,
  type AccountServiceDeps,
  type StartedSession,
  type UserOut,
} from "./account-types.js";

export function createAccountService(serviceDeps: AccountServiceDeps) {
  // resolved once: the clock default and the dummy hash unknown emails are verified against
  const deps = accountDeps(serviceDeps);
  return {
    signup: (body: { email: string; password: string; workspace_name: string }) => signup(deps, body),
    login: (body: { email: string; password: string }, ctx: { address: string }) => login(deps, body, ctx),
    /** Ends the session of this cookie value; false when there was none. */
    logout: (token: string | undefined) => logout(deps, token),
    /** The resolver createAuthService calls for a session cookie. */
    resolveSession: ((token: string) => resolveSession(deps, token)) satisfies SessionResolver,
    userOut: (userId: string) => accountUser(deps, userId),
    verifyEmail: (token: string) => verifyEmail(deps, token),
    /** Resends to the session's user, or for an API key (or the operator) to the workspace owner. */
    resendVerification: (p: Principal) => resendVerification(deps, p),
    /** Always the same answer, so neither body nor timing tells whether the address exists. */
    forgotPassword: (email: string) => forgotPassword(deps, email),
    resetPassword: (body: { token: string; password: string }) => resetPassword(deps, body),
    /** Deletes the caller's workspace and everything in it, once `confirm` equals its slug exactly. */
    deleteWorkspace: (p: Principal, confirm: string) => deleteWorkspace(deps, p, confirm),
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
