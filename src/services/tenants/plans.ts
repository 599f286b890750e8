// Plans and the usage record. Sources and documents are counted as what the workspace holds now;
// queries (search, retrieve, benchmark-run queries) per calendar month in UTC.
import type { Store } from "../../store/types.js";

export interface PlanLimits {
  sources: number | null;
  documents: number | null;
  queries: number | null;
}

export const PLAN_LIMITS: Record<string, PlanLimits> = {
  free: { sources: 5, documents: 1_000, queries: 5_000 },
  pro: { sources: 100, documents: 100_000, queries: 500_000 },
  enterprise: { sources: null, documents: null, queries: null },
};

export function limitsOf(plan: string): PlanLimits {
  return PLAN_LIMITS[plan] ?? PLAN_LIMITS.free;
}

export function currentPeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/** First instant of the next calendar month (UTC) as an ISO date-time. */
export function periodResetsAt(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

export interface UsageOut {
  period: string;
  resets_at: string;
  plan: string;
  sources_used: number;
  documents_used: number;
  queries_used: number;
  sources_limit: number | null;
  documents_limit: number | null;
  queries_limit: number | null;
}

export async function usageOf(store: Store, tenantId: string, plan: string, now = new Date()): Promise<UsageOut> {
  const period = currentPeriod(now);
  const c = await store.usage.counts(tenantId, period);
  const l = limitsOf(plan);
  return {
    period,
    resets_at: periodResetsAt(now),
    plan,
    sources_used: c.sources,
    documents_used: c.documents,
    queries_used: c.queries,
    sources_limit: l.sources,
    documents_limit: l.documents,
    queries_limit: l.queries,
  };
}
