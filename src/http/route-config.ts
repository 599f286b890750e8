// What every route declares about access; the auth hook in app.ts enforces it and the OpenAPI
// document shows it.
import type { Scope } from "../store/types.js";
import type { Principal } from "../services/auth/auth.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** minimum scope; null = no credentials needed */
    scope?: Scope | null;
    /** the handler reads the tenant again when it admits the request (search, retrieve): the auth hook may take it from the key cache */
    tenantAdmittedByRoute?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export const publicRoute = { scope: null } as const;
export const needs = (scope: Scope) => ({ scope });
/** a search-scoped route whose handler admits the tenant itself (quotas.admitSearch: tenant, collection and quota in one statement) */
export const searchAdmitted = { scope: "search", tenantAdmittedByRoute: true } as const;
