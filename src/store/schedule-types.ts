// Storage contract of data source schedules: when a crawled source is synced again. Request-side
// methods take the tenant id; the scheduler's own (due, claim) work across tenants.

export interface SourceScheduleRow {
  tenant_id: string;
  data_source_id: string;
  /** hourly, daily, weekly, or a five-field cron expression (UTC) */
  schedule: string;
  next_run_at: string;
  last_run_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScheduleStore {
  /** sets (or replaces) the source's schedule */
  put(row: SourceScheduleRow): Promise<void>;
  get(tenantId: string, sourceId: string): Promise<SourceScheduleRow | null>;
  remove(tenantId: string, sourceId: string): Promise<boolean>;
  /** schedules whose next run is at or before `now`, oldest first */
  due(now: string, limit: number): Promise<SourceScheduleRow[]>;
  /**
   * Moves the next run from `expected` to `next` and records `ranAt` as the last run, atomically;
   * false when another process moved it first (that process runs it).
   */
  claim(sourceId: string, expected: string, next: string, ranAt: string): Promise<boolean>;
}
