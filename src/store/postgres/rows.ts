// Shared row helpers of the PostgreSQL relational stores.
import type { TenantRow } from "../types.js";

export { parseJson } from "../json.js";

export const TENANT_COLS = "id, name, slug, plan, verified, created_at";

export const toTenant = (r: TenantRow): TenantRow => ({ id: r.id, name: r.name, slug: r.slug, plan: r.plan, verified: r.verified, created_at: r.created_at });
