// Turns request credentials into a Principal: who is calling, in which tenant, with which scopes.
// Bearer API keys and the operator's PLATFORM_API_KEY are handled here; console sessions plug in
// through the `sessions` resolver (accounts service).
//
// The operations are named functions taking their dependencies: auth-checks.ts (authenticate,
// requireScope), auth-model.ts (shared shapes, tenantOf). createAuthService binds them to one set
// of dependencies for the runtime.
import type { Scope } from "../../store/types.js";
import { authDeps, type AuthServiceDeps, type Credentials, type Principal } from "./auth-types.js";
import { authenticate, requireScope } from "./auth-checks.js";

export { keylessPrincipal, sha256Hex, tenantOf, type AuthServiceDeps, type Credentials, type Principal, type SessionResolver } from "./auth-types.js";

export function createAuthService(serviceDeps: AuthServiceDeps) {
  // resolved once: the clock default and the platform key's digest
  const deps = authDeps(serviceDeps);
  return {
    authenticate: (c: Credentials): Promise<Principal> => authenticate(deps, c),

    /**
     * Throws 403 naming the scope when the principal lacks it, and 403 for ingest-and-above calls
     * of a signed-up workspace whose email is not verified yet (search keeps working, so a new
     * user can look around). The operator is never held back; `unverifiedOk` exempts routes a
     * person must reach before verifying (deleting the workspace).
     */
    requireScope: (p: Principal, scope: Scope, opts: { unverifiedOk?: boolean } = {}): void => requireScope(deps, p, scope, opts),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
