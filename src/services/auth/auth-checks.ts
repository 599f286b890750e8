// The authentication service's operations, each taking its dependencies first (auth.ts binds
// them): credentials to a Principal (API key, platform key, session), and the scope check.
import { createHash, timingSafeEqual } from "node:crypto";
import type { ApiKeyRow, Scope, TenantRow } from "../../store/types.js";
import type { CachedKey } from "./key-cache.js";
import { allows, level } from "./scopes.js";
import { forbidden, notFound, unauthorized, badRequest } from "../errors.js";
import { keylessPrincipal, sha256Hex, type AuthDeps, type Credentials, type Principal } from "./auth-types.js";

// last_used_at is written at most this often per key, so a busy search key does not turn every
// query into a database write.
const TOUCH_INTERVAL_MS = 30_000;

function isPlatformKey(deps: AuthDeps, secret: string): boolean {
  if (!deps.platformDigest) return false;
  return timingSafeEqual(createHash("sha256").update(secret).digest(), deps.platformDigest);
}

/** The operator, outside any tenant or inside the one X-Tenant-Id names. */
async function platformPrincipal(deps: AuthDeps, tenantHeader: string | undefined): Promise<Principal> {
  let tenant: TenantRow | null = null;
  if (tenantHeader) {
    tenant = await deps.store.tenants.get(tenantHeader);
    if (!tenant) throw notFound("Tenant", tenantHeader);
  }
  return keylessPrincipal(tenant, ["platform"]);
}

/** The stored key of this secret, when it is still usable at `t`, with its tenant's row and whether both were read just now. */
async function usableKey(deps: AuthDeps, secret: string, t: Date): Promise<CachedKey & { fresh: boolean }> {
  const hash = sha256Hex(secret);
  let fresh = false;
  const load = () => ((fresh = true), deps.store.apiKeys.findByHashWithTenant(hash));
  const found = deps.keyCache ? await deps.keyCache.find(hash, load) : await load();
  if (!found) throw unauthorized("The API key is not valid. Check the Authorization: Bearer header.");
  const key = found.key;
  if (key.revoked_at) throw unauthorized("This API key has been revoked. Create a new key.");
  if (key.expires_at && Date.parse(key.expires_at) <= t.getTime()) {
    throw unauthorized("This API key has expired. Create a new key.");
  }
  return { ...found, fresh };
}

async function touchKey(deps: AuthDeps, key: ApiKeyRow, t: Date): Promise<void> {
  const due = !key.last_used_at || t.getTime() - Date.parse(key.last_used_at) > TOUCH_INTERVAL_MS;
  if (!due) return;
  const at = t.toISOString();
  await deps.store.apiKeys.touch(key.id, at);
  key.last_used_at = at;
}

async function bearerPrincipal(deps: AuthDeps, secret: string, c: Credentials): Promise<Principal> {
  const tenantHeader = c.tenantHeader;
  if (isPlatformKey(deps, secret)) return platformPrincipal(deps, tenantHeader);
  const t = deps.now();
  const found = await usableKey(deps, secret, t);
  const key = found.key;
  // a cached tenant row serves only a route that reads the tenant again itself; the others read it now
  const tenant = found.fresh || c.tenantAdmittedByRoute ? found.tenant : await deps.store.tenants.get(key.tenant_id);
  if (!tenant) throw unauthorized("The workspace of this API key no longer exists.");
  if (tenantHeader && tenantHeader !== tenant.id) {
    throw badRequest("X-Tenant-Id is only for the platform key; remove the header or use a key of that tenant.");
  }
  await touchKey(deps, key, t);
  return { tenant, scopes: key.scopes, authMethod: "api_key", key, userId: null, role: null, sessionId: null };
}

export async function authenticate(deps: AuthDeps, c: Credentials): Promise<Principal> {
  const auth = c.authorization?.trim();
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw unauthorized("Send the API key as 'Authorization: Bearer <key>'.");
    return bearerPrincipal(deps, m[1], c);
  }
  if (c.sessionToken && deps.sessions) {
    const s = await deps.sessions(c.sessionToken);
    if (!s) throw unauthorized("Your session has ended. Sign in again.");
    return { ...s, authMethod: "session", key: null };
  }
  throw unauthorized("Credentials are missing. Send 'Authorization: Bearer <API key>' or sign in.");
}

/** A signed-up workspace whose email is not verified yet, calling what needs verification. */
function heldBackUnverified(deps: AuthDeps, p: Principal, scope: Scope, unverifiedOk: boolean): boolean {
  return (
    (deps.requireEmailVerification ?? true) &&
    !unverifiedOk &&
    level(scope) >= level("ingest") &&
    !!p.tenant &&
    !p.tenant.verified &&
    !p.scopes.includes("platform")
  );
}

export function requireScope(deps: AuthDeps, p: Principal, scope: Scope, opts: { unverifiedOk?: boolean } = {}): void {
  if (!allows(p.scopes, scope)) {
    throw forbidden(`This endpoint needs the '${scope}' scope; your credentials have: ${p.scopes.join(", ")}.`);
  }
  if (heldBackUnverified(deps, p, scope, opts.unverifiedOk ?? false)) {
    throw forbidden(
      "Verify your email address before changing this workspace: open the link in the email we sent at signup, or request a new one with POST /auth/resend-verification.",
    );
  }
}
