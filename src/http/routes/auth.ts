import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { Empty, errors, ref } from "../schemas/common.js";
import * as A from "../schemas/account.js";
import { needs, publicRoute } from "../route-config.js";
import { SESSION_COOKIE } from "../session-cookie.js";
import { ThrottledError, type StartedSession, type AccountService } from "../../services/accounts.js";
import { unauthorized } from "../../services/errors.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** the route works before the workspace's email is verified (see AuthService.requireScope) */
    unverifiedOk?: boolean;
  }
}

/** What these routes use, and nothing else of the runtime. */
export interface AuthRouteDeps {
  accounts: AccountService;
  /** the public base URL: cookies are Secure when it is https */
  publicUrl: string;
}

export const authRoutes =
  ({ accounts, publicUrl }: AuthRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["account"];
    const secure = publicUrl.startsWith("https:");
    const cookieBase = { httpOnly: true, sameSite: "lax" as const, path: "/", secure };

    function startSession(reply: FastifyReply, s: StartedSession) {
      reply.setCookie(SESSION_COOKIE, s.token, { ...cookieBase, maxAge: Math.round((s.expiresAt.getTime() - Date.now()) / 1000) });
    }
    const endSession = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieBase);

    /** Throttle answers carry Retry-After so clients need not parse the detail. */
    async function withRetryAfter<T>(reply: FastifyReply, f: () => Promise<T>): Promise<T> {
      try {
        return await f();
      } catch (err) {
        if (err instanceof ThrottledError) reply.header("retry-after", String(err.retryAfterSeconds));
        throw err;
      }
    }

    app.post(
      "/auth/signup",
      {
        config: publicRoute,
        schema: {
          tags,
          summary: "Sign up: creates the workspace, its owner and a console session",
          description: `Sets the session cookie \`${SESSION_COOKIE}\` and emails a verification link. Until the link is followed, calls that need the ingest scope or more answer 403.`,
          body: ref(A.SignupRequest),
          response: { 201: ref(A.AccountOut), ...errors(409, 422) },
        },
      },
      async (req, reply) => {
        const s = await accounts.signup(req.body);
        startSession(reply, s);
        return reply.status(201).send(s.account);
      },
    );

    app.post(
      "/auth/login",
      {
        config: publicRoute,
        schema: {
          tags,
          summary: "Sign in to a console session",
          description: `Sets the session cookie \`${SESSION_COOKIE}\`. After 5 failed attempts for one email (or 20 from one address) within 15 minutes, answers 429 until the oldest attempt is 15 minutes old.`,
          body: ref(A.LoginRequest),
          response: { 200: ref(A.AccountOut), ...errors(401, 422, 429) },
        },
      },
      async (req, reply) => {
        const s = await withRetryAfter(reply, () => accounts.login(req.body, { address: req.ip }));
        startSession(reply, s);
        return s.account;
      },
    );

    app.post(
      "/auth/logout",
      {
        config: publicRoute,
        schema: {
          tags,
          summary: "End the console session",
          description: `Needs the session cookie \`${SESSION_COOKIE}\`; the session ends server-side and the cookie is cleared.`,
          response: { 204: Empty, ...errors(401) },
        },
      },
      async (req, reply) => {
        const ended = await accounts.logout(req.cookies[SESSION_COOKIE]);
        endSession(reply);
        if (!ended) throw unauthorized("You are not signed in (no live session cookie); nothing to end.");
        return reply.status(204).send(null);
      },
    );

    app.post(
      "/auth/verify",
      {
        config: publicRoute,
        schema: { tags, summary: "Verify the email address with the emailed token", body: ref(A.VerifyEmailRequest), response: { 200: ref(A.MessageOut), ...errors(400, 422) } },
      },
      async (req) => accounts.verifyEmail(req.body.token),
    );

    app.post(
      "/auth/resend-verification",
      {
        config: needs("search"),
        schema: {
          tags,
          summary: "Send a fresh verification email",
          description: "With a session: to the signed-in user. With an API key: to the workspace owner. Earlier links stop working. At most 5 an hour.",
          response: { 202: ref(A.MessageOut), ...errors(401, 409, 429, 503) },
        },
      },
      async (req, reply) => reply.status(202).send(await withRetryAfter(reply, () => accounts.resendVerification(req.principal!))),
    );

    app.post(
      "/auth/forgot-password",
      {
        config: publicRoute,
        schema: {
          tags,
          summary: "Email a password reset link (202 whether or not the email exists)",
          body: ref(A.ForgotPasswordRequest),
          response: { 202: ref(A.MessageOut), ...errors(422) },
        },
      },
      async (req, reply) => reply.status(202).send(await accounts.forgotPassword(req.body.email)),
    );

    app.post(
      "/auth/reset-password",
      {
        config: publicRoute,
        schema: {
          tags,
          summary: "Set a new password with the emailed token; ends every session of the user",
          body: ref(A.ResetPasswordRequest),
          response: { 200: ref(A.MessageOut), ...errors(400, 422) },
        },
      },
      async (req) => accounts.resetPassword(req.body),
    );

    app.delete(
      "/auth/workspace",
      {
        // A person who signed up with a mistyped address must still be able to delete the workspace.
        config: { ...needs("admin"), unverifiedOk: true },
        schema: {
          tags,
          summary: "Delete the workspace and everything in it",
          description: "`confirm` must equal the workspace slug exactly (case-sensitive). Every key and session of the workspace stops working.",
          body: ref(A.DeleteWorkspaceRequest),
          response: { 204: Empty, ...errors(401, 403, 422) },
        },
      },
      async (req, reply) => {
        await accounts.deleteWorkspace(req.principal!, req.body.confirm);
        if (req.principal!.authMethod === "session") endSession(reply);
        return reply.status(204).send(null);
      },
    );
  };
