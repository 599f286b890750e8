// What every route declares about access; the auth hook in app.ts enforces it and the OpenAPI
// document shows it.
import type { Scope } from "../store/types.js";
import type { Principal } from "../services/auth/auth.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** minimum scope; null = no credentials needed */
    scope?: Scope | null;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const publicRoute = { scope: null } as const;
export const needs = (scope: Scope) => ({ scope });
