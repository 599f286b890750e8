// Shared shapes of authentication: who is calling (Principal), what a request carries
// (Credentials), the session resolver the accounts service plugs in, and the dependencies.
// Kept apart from auth.ts so the checks (auth-checks.ts) and the binding (auth.ts) import it
// without importing each other.
import { createHash } from "node:crypto";
import type { ApiKeyRow, Scope, Store, TenantRow } from "../../store/types.js";
import type { KeyCache } from "./key-cache.js";
import { badRequest } from "../errors.js";

export interface Principal {
  /** null only for the operator acting outside any tenant */
  tenant: TenantRow | null;
  scopes: Scope[];
  authMethod: "api_key" | "session";
  key: ApiKeyRow | null;
  userId: string | null;
  role: string | null;
  sessionId: string | null;
}

/**
 * A caller with no key, user or session: the operator's platform key (whose key is not stored),
 * and work the service does in-process on a tenant's behalf (jobs, CLI, bench).
 */
export function keylessPrincipal(tenant: TenantRow | null, scopes: Scope[]): Principal {
  return { tenant, scopes, authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
}

export interface SessionResolver {
  (token: string): Promise<Omit<Principal, "authMethod" | "key"> | null>;
}

export interface Credentials {
  authorization: string | undefined;
  sessionToken: string | undefined;
  tenantHeader: string | undefined;
  /**
   * the route reads the tenant's row again in the statement that admits the request (search and
   * retrieve: quotas.admitSearch), so a key's tenant row may come from the key cache
   */
  tenantAdmittedByRoute?: boolean;
}

export interface AuthServiceDeps {
  store: Store;
  platformApiKey: string | null;
  sessions?: SessionResolver;
  /** refuse ingest-and-above calls of tenants whose owner has not verified the email yet */
  requireEmailVerification?: boolean;
  now?: () => Date;
  /** key rows by secret hash, dropped on revocation in every process (key-cache.ts) */
  keyCache?: KeyCache;
}

/** The dependencies with defaults resolved, as the checks take them. */
export interface AuthDeps extends AuthServiceDeps {
  now: () => Date;
  /** SHA-256 of the platform key, compared in constant time; null when there is none */
  platformDigest: Buffer | null;
}

export function authDeps(deps: AuthServiceDeps): AuthDeps {
  return {
    ...deps,
    now: deps.now ?? (() => new Date()),
    platformDigest: deps.platformApiKey ? createHash("sha256").update(deps.platformApiKey).digest() : null,
  };
}

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** The tenant a tenant-scoped call acts in; the operator must name one with X-Tenant-Id. */
export function tenantOf(p: Principal): TenantRow {
  if (!p.tenant) throw badRequest("The platform key acts inside a tenant only with an X-Tenant-Id header naming it.");
  return p.tenant;
}
