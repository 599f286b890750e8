import type { Store, TenantRow } from "../../store/types.js";
import { UniqueViolation } from "../../store/types.js";
import { newId, nowIso } from "../../store/ids.js";
import { conflict, notFound } from "../errors.js";
import { keyOut, mintKey, type ApiKeyCreated } from "../auth/api-keys.js";
import { MAX_SLUG_RETRIES, slugify, uniqueSlug } from "../collections/slug.js";
import { PLAN_LIMITS } from "./plans.js";
import type { AuditService } from "./audit.js";

export interface TenantOut {
  id: string;
  name: string;
  slug: string;
  created_at: string;
}

export const tenantOut = (t: TenantRow): TenantOut => ({ id: t.id, name: t.name, slug: t.slug, created_at: t.created_at });

export function createTenantService(deps: { store: Store; defaultPlan: string; audit?: Pick<AuditService, "record"> }) {
  return {
    async list(): Promise<TenantOut[]> {
      return (await deps.store.tenants.list()).map(tenantOut);
    },

    /**
     * An explicit slug that is taken answers 409; a slug derived from the name is made unique
     * (acme, acme-2, ...) because the caller did not choose it.
     */
    async create(body: { name: string; slug?: string | null; admin_key_name?: string }): Promise<{ tenant: TenantOut; admin_key: ApiKeyCreated }> {
      const explicit = body.slug ?? null;
      // A derived slug can be taken between the check and the insert by a concurrent creation
      // (on any API process); then nothing was written and we derive the next one.
      for (let attempt = 0; ; attempt++) {
        const slug = explicit ?? (await uniqueSlug(slugify(body.name), (s) => deps.store.tenants.slugExists(s)));
        const tenant: TenantRow = {
          id: newId("ten"),
          name: body.name,
          slug,
          plan: deps.defaultPlan,
          verified: true,
          created_at: nowIso(),
        };
        const { secret, row } = mintKey(tenant.id, body.admin_key_name ?? "Admin key", ["admin"], null);
        try {
          await deps.store.tenants.createWithKey(tenant, row);
        } catch (err) {
          if (!(err instanceof UniqueViolation)) throw err;
          if (explicit || attempt >= MAX_SLUG_RETRIES) throw conflict(`The slug '${slug}' is taken. Choose another slug or leave it out to derive one.`);
          continue;
        }
        return { tenant: tenantOut(tenant), admin_key: { ...keyOut(row), key: secret } };
      }
    },

    async setPlan(tenantId: string, plan: string): Promise<TenantOut & { plan: string }> {
      if (!(plan in PLAN_LIMITS)) throw conflict(`Unknown plan '${plan}'.`);
      const t = await deps.store.tenants.get(tenantId);
      if (!t) throw notFound("Tenant", tenantId);
      await deps.store.tenants.setPlan(tenantId, plan);
      if (t.plan !== plan) {
        await deps.audit?.record({ tenantId, actor: { actor_type: "platform", actor_id: null }, action: "tenant.plan_changed", detail: { from: t.plan, to: plan } });
      }
      return { ...tenantOut(t), plan };
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
