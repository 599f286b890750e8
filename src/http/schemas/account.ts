import { Type } from "@sinclair/typebox";
import { strictObject } from "./common.js";

const Email = Type.String({ maxLength: 320, pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$" });

export const SignupRequest = strictObject(
  {
    email: Email,
    password: Type.String({ minLength: 10, maxLength: 200 }),
    workspace_name: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { $id: "SignupRequest" },
);
export const LoginRequest = strictObject(
  { email: Type.String({ maxLength: 320 }), password: Type.String({ maxLength: 200 }) },
  { $id: "LoginRequest" },
);
export const VerifyEmailRequest = strictObject({ token: Type.String({ minLength: 1, maxLength: 500 }) }, { $id: "VerifyEmailRequest" });
export const ForgotPasswordRequest = strictObject({ email: Type.String({ maxLength: 320 }) }, { $id: "ForgotPasswordRequest" });
export const ResetPasswordRequest = strictObject(
  { token: Type.String({ maxLength: 500 }), password: Type.String({ minLength: 10, maxLength: 200 }) },
  { $id: "ResetPasswordRequest" },
);
export const DeleteWorkspaceRequest = strictObject({ confirm: Type.String() }, { $id: "DeleteWorkspaceRequest" });

export const AccountOut = Type.Object(
  {
    user: Type.Ref("User"),
    tenant: Type.Ref("Tenant"),
    role: Type.String(),
    scopes: Type.Array(Type.String()),
    plan: Type.String(),
  },
  { $id: "AccountOut" },
);

export const MessageOut = Type.Object({ detail: Type.String() }, { $id: "MessageOut" });
