// quarry tenants create|list|set-plan and quarry keys create|list|revoke: the operator's
// workspace administration without the HTTP API or PLATFORM_API_KEY, on the store of DATA_DIR.
import type { Config } from "../config.js";
import { PLANS } from "../config.js";
import { openStore } from "../store/open.js";
import { createTenantService } from "../services/tenants/tenants.js";
import { createApiKeyService } from "../services/auth/api-keys.js";
import { SCOPE_ORDER } from "../services/auth/scopes.js";
import { createAuditService } from "../services/tenants/audit.js";
import { createLogger } from "../logger.js";
import { keylessPrincipal } from "../services/auth/auth.js";
import type { Store, TenantRow } from "../store/types.js";
import { CliError } from "../terminal/errors.js";
import { createKeyCache } from "../services/auth/key-cache.js";

/** Scopes a tenant key can hold (platform belongs to PLATFORM_API_KEY alone). */
export const TENANT_SCOPES = SCOPE_ORDER.filter((s) => s !== "platform");

export async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The audit trail of CLI changes (plan changes, keys), as the API records them. */
const auditOf = (config: Config, store: Store) =>
  createAuditService({ store, log: createLogger({ level: "warn", format: config.logFormat }), retentionDays: config.auditRetentionDays });

export async function findTenant(store: Store, idOrSlug: string): Promise<TenantRow> {
  const t = (await store.tenants.list()).find((x) => x.id === idOrSlug || x.slug === idOrSlug);
  if (!t) throw new CliError(`No tenant '${idOrSlug}'`, "Run `quarry tenants list` for the ids and slugs, or `quarry tenants create <name>`", 3);
  return t;
}

const operator = (tenant: TenantRow) => keylessPrincipal(tenant, ["admin"]);

export function checkPlan(plan: string): string {
  if (!(PLANS as readonly string[]).includes(plan)) throw new CliError(`Unknown plan '${plan}'`, `Use one of ${PLANS.join(", ")}`, 2);
  return plan;
}

export async function createTenant(config: Config, o: { name: string; slug?: string; plan?: string; keyName?: string }) {
  const plan = checkPlan(o.plan ?? config.defaultPlan);
  return withStore(config, async (store) => {
    const tenants = createTenantService({ store, defaultPlan: plan, audit: auditOf(config, store) });
    const made = await tenants.create({ name: o.name, slug: o.slug ?? null, admin_key_name: o.keyName });
    return { tenant: made.tenant, plan, admin_key: made.admin_key };
  });
}

export async function listTenants(config: Config) {
  return withStore(config, async (store) => (await store.tenants.list()).map((t) => ({ id: t.id, slug: t.slug, name: t.name, plan: t.plan, created_at: t.created_at })));
}

export async function setPlan(config: Config, tenant: string, plan: string) {
  checkPlan(plan);
  return withStore(config, async (store) => {
    const t = await findTenant(store, tenant);
    return createTenantService({ store, defaultPlan: config.defaultPlan, audit: auditOf(config, store) }).setPlan(t.id, plan);
  });
}

export async function createKey(config: Config, o: { tenant: string; name: string; scopes: string[]; expiresInDays?: number }) {
  const bad = o.scopes.filter((s) => !(TENANT_SCOPES as string[]).includes(s));
  if (bad.length) throw new CliError(`Unknown scope '${bad.join("', '")}'`, `Use a comma-separated list of ${TENANT_SCOPES.join(", ")}`, 2);
  return withStore(config, async (store) => {
    const t = await findTenant(store, o.tenant);
    return createApiKeyService({ store, audit: auditOf(config, store) }).create(operator(t), { name: o.name, scopes: o.scopes, expires_in_days: o.expiresInDays ?? null });
  });
}

export async function listKeys(config: Config, tenant: string) {
  return withStore(config, async (store) => createApiKeyService({ store }).list(operator(await findTenant(store, tenant))));
}

export async function revokeKey(config: Config, tenant: string, keyId: string) {
  return withStore(config, async (store) => {
    // published to the running API processes, which drop the key from their caches at once
    const keyCache = createKeyCache({ redisUrl: config.redisUrl, prefix: config.queuePrefix });
    try {
      await createApiKeyService({ store, audit: auditOf(config, store), keyCache }).revoke(operator(await findTenant(store, tenant)), keyId);
    } finally {
      await keyCache.close();
    }
    return { id: keyId, revoked: true };
  });
}
