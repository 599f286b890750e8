// The account routes that work through emailed links: verifying the address and resetting a
// forgotten password. authRoutes (auth.ts) registers them between the session routes.
import * as A from "../schemas/account.js";
import { errors, ref } from "../schemas/common.js";
import { needs, publicRoute } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { withRetryAfter } from "../retry-after.js";
import type { AccountService } from "../../services/accounts/accounts.js";

const tags = ["account"];

/** What these routes use, and nothing else of the runtime. */
export interface AccountEmailRouteDeps {
  accounts: AccountService;
}

export function registerAccountEmailRoutes(app: RouteApp, { accounts }: AccountEmailRouteDeps) {
  registerVerify(app, accounts);
  registerResendVerification(app, accounts);
  registerForgotPassword(app, accounts);
  registerResetPassword(app, accounts);
}

function registerVerify(app: RouteApp, accounts: AccountService) {
  app.post(
    "/auth/verify",
    {
      config: publicRoute,
      schema: { tags, summary: "Verify the email address with the emailed token", body: ref(A.VerifyEmailRequest), response: { 200: ref(A.MessageOut), ...errors(400, 422) } },
    },
    async (req) => accounts.verifyEmail(req.body.token),
  );
}

function registerResendVerification(app: RouteApp, accounts: AccountService) {
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
}

function registerForgotPassword(app: RouteApp, accounts: AccountService) {
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
}

function registerResetPassword(app: RouteApp, accounts: AccountService) {
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
}
