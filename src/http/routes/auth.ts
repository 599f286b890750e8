// The account's session routes (signup, login, logout, deleting the workspace); the emailed-link
// flows (verification, password reset) are in auth-email.ts and registered from here, between
// logout and the workspace deletion, so the OpenAPI document keeps its order.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { Empty, errors, ref } from "../schemas/common.js";
import * as A from "../schemas/account.js";
import { needs, publicRoute } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { withRetryAfter } from "../retry-after.js";
import { SESSION_COOKIE } from "../session-cookie.js";
import type { StartedSession, AccountService } from "../../services/accounts/accounts.js";
import { unauthorized } from "../../services/errors.js";
import { registerAccountEmailRoutes } from "./auth-email.js";

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

const tags = ["account"];

/** Sets and clears the console session cookie, Secure when the service is reached over https. */
interface SessionCookie {
  start(reply: FastifyReply, s: StartedSession): void;
  end(reply: FastifyReply): void;
}

function sessionCookie(publicUrl: string): SessionCookie {
  const secure = publicUrl.startsWith("https:");
  const cookieBase = { httpOnly: true, sameSite: "lax" as const, path: "/", secure };
  return {
    start(reply, s) {
      reply.setCookie(SESSION_COOKIE, s.token, { ...cookieBase, maxAge: Math.round((s.expiresAt.getTime() - Date.now()) / 1000) });
    },
    end(reply) {
      reply.clearCookie(SESSION_COOKIE, cookieBase);
    },
  };
}

export const authRoutes =
  ({ accounts, publicUrl }: AuthRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const cookie = sessionCookie(publicUrl);
    registerSignup(app, accounts, cookie);
    registerLogin(app, accounts, cookie);
    registerLogout(app, accounts, cookie);
    registerAccountEmailRoutes(app, { accounts });
    registerDeleteWorkspace(app, accounts, cookie);
  };

function registerSignup(app: RouteApp, accounts: AccountService, cookie: SessionCookie) {
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
      cookie.start(reply, s);
      return reply.status(201).send(s.account);
    },
  );
}

function registerLogin(app: RouteApp, accounts: AccountService, cookie: SessionCookie) {
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
      cookie.start(reply, s);
      return s.account;
    },
  );
}

function registerLogout(app: RouteApp, accounts: AccountService, cookie: SessionCookie) {
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
      cookie.end(reply);
      if (!ended) throw unauthorized("You are not signed in (no live session cookie); nothing to end.");
      return reply.status(204).send(null);
    },
  );
}

function registerDeleteWorkspace(app: RouteApp, accounts: AccountService, cookie: SessionCookie) {
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
      if (req.principal!.authMethod === "session") cookie.end(reply);
      return reply.status(204).send(null);
    },
  );
}
