// Storage contract of tenants, API keys and usage counts, apart from types.ts so that the other
// contracts (account-types.ts) can use the tenant row without importing the whole Store.
export type Scope = "search" | "ingest" | "admin" | "platform";

export interface TenantRow {
  id: string;
  name: string;
  slug: string;
  plan: string;
  /** false for signed-up workspaces until the owner verifies the email; operator-made tenants start true */
  verified: boolean;
  created_at: string;
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  /** hex SHA-256 of the secret; the secret itself is never stored */
  hash: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export class UniqueViolation extends Error {
  constructor(public readonly field: string) {
    super(`unique violation on ${field}`);
  }
}

export interface TenantStore {
  /** creates the tenant and its first admin key atomically; UniqueViolation("slug") when taken */
  createWithKey(tenant: TenantRow, key: ApiKeyRow): Promise<void>;
  list(): Promise<TenantRow[]>;
  get(id: string): Promise<TenantRow | null>;
  slugExists(slug: string): Promise<boolean>;
  setPlan(id: string, plan: string): Promise<void>;
}

export interface ApiKeyStore {
  create(key: ApiKeyRow): Promise<void>;
  list(tenantId: string): Promise<ApiKeyRow[]>;
  get(tenantId: string, id: string): Promise<ApiKeyRow | null>;
  findByHash(hash: string): Promise<ApiKeyRow | null>;
  /** the key of this hash with its tenant's row (null if the tenant is gone), in one read */
  findByHashWithTenant(hash: string): Promise<{ key: ApiKeyRow; tenant: TenantRow | null } | null>;
  revoke(tenantId: string, id: string, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
}

export interface UsageCounts {
  sources: number;
  documents: number;
  queries: number;
}

export interface UsageStore {
  counts(tenantId: string, period: string): Promise<UsageCounts>;
}
