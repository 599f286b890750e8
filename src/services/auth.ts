// Turns request credentials into a Principal: who is calling, in which tenant, with which scopes.
// Bearer API keys and the operator's PLATFORM_API_KEY are handled here; console sessions plug in
// through the `sessions` resolver (accounts service).
import { createHash, timingSafeEqual } from "node:crypto";
import type { ApiKeyRow, Scope, Store, TenantRow } from "../store/types.js";
import { allows, level } from "./scopes.js";
import { forbidden, notFound, unauthorized, badRequest } from "./errors.js";

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

export interface SessionResolver {
  (token: string): Promise<Omit<Principal, "authMethod" | "key"> | null>;
}

export interface Credentials {
  authorization: string | undefined;
  sessionToken: string | undefined;
  tenantHeader: string | undefined;
}

export const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

// last_used_at is written at most this often per key, so a busy search key does not turn every
// query into a database write.
const TOUCH_INTERVAL_MS = 30_000;

export function createAuthService(deps: {
  store: Store;
  platformApiKey: string | null;
  sessions?: SessionResolver;
  /** refuse ingest-and-above calls of tenants whose owner has not verified the email yet */
  requireEmailVerification?: boolean;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  const platformDigest = deps.platformApiKey ? createHash("sha256").update(deps.platformApiKey).digest() : null;

  function isPlatformKey(secret: string): boolean {
    if (!platformDigest) return false;
    return timingSafeEqual(createHash("sha256").update(secret).digest(), platformDigest);
  }

  async function fromBearer(secret: string, tenantHeader: string | undefined): Promise<Principal> {
    if (isPlatformKey(secret)) {
      let tenant: TenantRow | null = null;
      if (tenantHeader) {
        tenant = await deps.store.tenants.get(tenantHeader);
        if (!tenant) throw notFound("Tenant", tenantHeader);
      }
      return { tenant, scopes: ["platform"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
    }
    const key = await deps.store.apiKeys.findByHash(sha256Hex(secret));
    if (!key) throw unauthorized("The API key is not valid. Check the Authorization: Bearer header.");
    const t = now();
    if (key.revoked_at) throw unauthorized("This API key has been revoked. Create a new key.");
    if (key.expires_at && Date.parse(key.expires_at) <= t.getTime()) {
      throw unauthorized("This API key has expired. Create a new key.");
    }
    const tenant = await deps.store.tenants.get(key.tenant_id);
    if (!tenant) throw unauthorized("The workspace of this API key no longer exists.");
    if (tenantHeader && tenantHeader !== tenant.id) {
      throw badRequest("X-Tenant-Id is only for the platform key; remove the header or use a key of that tenant.");
    }
    if (!key.last_used_at || t.getTime() - Date.parse(key.last_used_at) > TOUCH_INTERVAL_MS) {
      const at = t.toISOString();
      await deps.store.apiKeys.touch(key.id, at);
      key.last_used_at = at;
    }
    return { tenant, scopes: key.scopes, authMethod: "api_key", key, userId: null, role: null, sessionId: null };
  }

  return {
    async authenticate(c: Credentials): Promise<Principal> {
      const auth = c.authorization?.trim();
      if (auth) {
        const m = /^Bearer\s+(\S+)$/i.exec(auth);
        if (!m) throw unauthorized("Send the API key as 'Authorization: Bearer <key>'.");
        return fromBearer(m[1], c.tenantHeader);
      }
      if (c.sessionToken && deps.sessions) {
        const s = await deps.sessions(c.sessionToken);
        if (!s) throw unauthorized("Your session has ended. Sign in again.");
        return { ...s, authMethod: "session", key: null };
      }
      throw unauthorized("Credentials are missing. Send 'Authorization: Bearer <API key>' or sign in.");
    },

    /**
     * Throws 403 naming the scope when the principal lacks it, and 403 for ingest-and-above calls
     * of a signed-up workspace whose email is not verified yet (search keeps working, so a new
     * user can look around). The operator is never held back; `unverifiedOk` exempts routes a
     * person must reach before verifying (deleting the workspace).
     */
    requireScope(p: Principal, scope: Scope, opts: { unverifiedOk?: boolean } = {}): void {
      if (!allows(p.scopes, scope)) {
        throw forbidden(`This endpoint needs the '${scope}' scope; your credentials have: ${p.scopes.join(", ")}.`);
      }
      if (
        (deps.requireEmailVerification ?? true) &&
        !opts.unverifiedOk &&
        level(scope) >= level("ingest") &&
        p.tenant &&
        !p.tenant.verified &&
        !p.scopes.includes("platform")
      ) {
        throw forbidden(
          "Verify your email address before changing this workspace: open the link in the email we sent at signup, or request a new one with POST /auth/resend-verification.",
        );
      }
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** The tenant a tenant-scoped call acts in; the operator must name one with X-Tenant-Id. */
export function tenantOf(p: Principal): TenantRow {
  if (!p.tenant) throw badRequest("The platform key acts inside a tenant only with an X-Tenant-Id header naming it.");
  return p.tenant;
}
