// The storage interface. Services talk only to this; sqlite/ implements it for the embedded mode
// and a PostgreSQL implementation can satisfy the same contract for scale-out. Every method that
// touches tenant data takes the tenant id and filters by it in the query itself. Methods are
// coarse (one use case, one atomic unit) so both backends can make each one a transaction.
import type { ContentStore } from "./content-store.js";
import type { AccountStore, QuotaStore } from "./account-types.js";
import type { BenchmarkStore } from "./benchmark-types.js";
import type { AdaptationStore } from "./adaptation-types.js";
import type { CrawlStore } from "./crawl-types.js";
import type { FreshnessStore } from "./freshness-types.js";
import type { WebhookStore } from "./webhook-types.js";
import type { ScheduleStore } from "./schedule-types.js";
import type { AuditStore } from "./audit-types.js";
import type { AnalyticsStore } from "./analytics-types.js";
import type { ApiKeyStore, TenantStore, UsageStore } from "./tenant-types.js";

export * from "./tenant-types.js";

export interface Store {
  readonly kind: "sqlite" | "postgres";
  content: ContentStore;
  tenants: TenantStore;
  apiKeys: ApiKeyStore;
  usage: UsageStore;
  accounts: AccountStore;
  quotas: QuotaStore;
  benchmarks: BenchmarkStore;
  /** adaptation jobs of collections (issue 27 item 4) */
  adaptations: AdaptationStore;
  crawls: CrawlStore;
  /** re-crawl bookkeeping: page outcomes, misses, text hashes */
  freshness: FreshnessStore;
  webhooks: WebhookStore;
  schedules: ScheduleStore;
  audit: AuditStore;
  /** search log, feedback and the logging switch (issue 29) */
  analytics: AnalyticsStore;
  /** throws when the database cannot answer */
  ping(): Promise<void>;
  close(): Promise<void>;
}
