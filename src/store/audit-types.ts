// Storage contract of the audit trail: who did what to which thing of a tenant, kept for a
// configurable time. Rows are not tied to the tenant row by a foreign key, so the record of a
// workspace's deletion outlives the workspace until retention removes it.

export interface AuditRow {
  id: string;
  tenant_id: string;
  at: string;
  /** "api_key", "session", "platform" (the operator key) or "anonymous" (a failed sign-in) */
  actor_type: string;
  /** key id, user id, or null */
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  detail: Record<string, unknown>;
  /** client address when the request had one */
  address: string | null;
}

export interface AuditStore {
  record(row: AuditRow): Promise<void>;
  /** newest first; `before` is the (at, id) of the last row of the previous page */
  list(tenantId: string, opts: { limit: number; before?: { at: string; id: string } }): Promise<AuditRow[]>;
  /** removes rows older than `before` (ISO time); returns how many */
  prune(before: string): Promise<number>;
}
