// Plan limits as the rest of the app enforces them. Queries are counted per calendar month (UTC)
// in a counter that is checked and incremented atomically; sources and documents count what the
// workspace holds now, so the content services check them inside their own create transactions
// with assertWithinLimit() / quotaExceededError().
import type { Store, TenantRow } from "../../store/types.js";
import type { QueryAdmission } from "../../store/account-types.js";
import { ServiceError, notFound, unauthorized } from "../errors.js";
import { currentPeriod, limitsOf, periodResetsAt, usageOf, type PlanLimits, type UsageOut } from "./plans.js";

export type QuotaKind = keyof PlanLimits;

const WHAT: Record<QuotaKind, string> = {
  sources: "Data source limit",
  documents: "Document limit",
  queries: "Monthly query limit",
};

const HOW_TO_FREE: Record<QuotaKind, string> = {
  sources: "Delete a data source you no longer need (a failed crawl's source holds its slot until it is deleted) or move to a larger plan.",
  documents: "Delete documents or move to a larger plan.",
  queries: "",
};

/**
 * The 429 of a plan limit, worded as DESIGN.md shows:
 * "Monthly query limit reached on the free plan: 5000 of 5000 used; resets 2026-12-01."
 * `adding` (the size of the refused request) is mentioned when it is more than one, with the room
 * that is left, so a batch that does not fit says by how much.
 */
export function quotaExceededError(kind: QuotaKind, plan: string, used: number, limit: number, adding = 1, now = new Date()): ServiceError {
  const left = Math.max(0, limit - used);
  const need = adding > 1 ? `; this request needs ${adding}, ${left} left` : "";
  const head = `${WHAT[kind]} reached on the ${plan} plan: ${used} of ${limit} used${need}`;
  const tail = kind === "queries" ? `; resets ${periodResetsAt(now).slice(0, 10)}.` : `. ${HOW_TO_FREE[kind]}`;
  return new ServiceError("quota_exceeded", head + tail);
}

/** Throws the 429 when `adding` more would pass the plan's limit; null limits never throw. Synchronous, for use inside transactions. */
export function assertWithinLimit(kind: QuotaKind, plan: string, used: number, adding = 1, now = new Date()): void {
  const limit = limitsOf(plan)[kind];
  if (limit !== null && used + adding > limit) throw quotaExceededError(kind, plan, used, limit, adding, now);
}

export function createQuotaService(deps: { store: Store; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    /**
     * Counts n queries against the tenant's monthly quota, all or nothing: either all n are
     * added or a quota_exceeded ServiceError (429) is thrown and nothing is counted. Call it
     * before running the queries (search, retrieve: 1; a benchmark run: its case count).
     * Returns the count after the call.
     */
    async consumeQueries(tenant: TenantRow, n = 1): Promise<{ used: number; limit: number | null }> {
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`consumeQueries needs a non-negative integer, got ${n}`);
      const t = now();
      const limit = limitsOf(tenant.plan).queries;
      const r = await deps.store.quotas.consumeQueries(tenant.id, currentPeriod(t), n, limit);
      if (!r.ok) throw quotaExceededError("queries", tenant.plan, r.used, limit!, n, t);
      return { used: r.used, limit };
    },

    /**
     * A search or retrieve of a collection, admitted in one store call: the tenant as it is now
     * (401 when it was deleted: the caller's tenant row may come from the key cache), the
     * collection's scope (404, nothing counted) and one query counted against the plan the tenant
     * is on now (429). A plan changed since `tenant` was read is seen here and its limit applied.
     */
    async admitSearch(tenant: TenantRow, collectionId: string): Promise<{ tenant: TenantRow; scope: NonNullable<QueryAdmission["scope"]> }> {
      const t = now();
      let plan = tenant.plan;
      // the plan read back differs from the one assumed only after a change: once more, with its limit
      for (let attempt = 0; ; attempt++) {
        const limit = limitsOf(plan).queries;
        const a = await deps.store.quotas.admitQueries(tenant.id, collectionId, currentPeriod(t), 1, plan, limit);
        if (!a.tenant) throw unauthorized("The workspace of this API key no longer exists.");
        if (!a.scope) throw notFound("Collection", collectionId);
        if (a.tenant.plan !== plan && attempt < 3) {
          plan = a.tenant.plan;
          continue;
        }
        if (!a.ok) throw quotaExceededError("queries", a.tenant.plan, a.used, limit ?? a.used, 1, t);
        return { tenant: a.tenant, scope: a.scope };
      }
    },

    /** The tenant's usage this period against its plan's limits (GET /me). */
    usage(tenant: TenantRow): Promise<UsageOut> {
      return usageOf(deps.store, tenant.id, tenant.plan, now());
    },
  };
}

export type QuotaService = ReturnType<typeof createQuotaService>;
