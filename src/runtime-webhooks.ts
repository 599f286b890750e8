// The webhook and schedule parts of the composition root: the webhook service, its own queue
// (deliveries never wait behind ingest or crawl jobs), the document events raised after each
// ingest job, and the timer that starts scheduled syncs.
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Store } from "./store/types.js";
import type { JobQueue, QueueBackend, QueuedJob } from "./jobs/index.js";
import { createUrlPolicy } from "./crawl/index.js";
import { WEBHOOK_JOB_KIND } from "./services/webhooks/webhook-types.js";
import { createWebhookService, type WebhookEmitter, type WebhookService } from "./services/webhooks/webhooks.js";
import { createScheduleService } from "./services/crawl/schedules.js";
import type { CrawlService } from "./services/crawl/crawls.js";

export interface WebhookParts {
  webhooks: WebhookService;
  webhookQueue: JobQueue;
}

export function assembleWebhooks(queues: QueueBackend, b: { store: Store; log: Logger; config: Config }): WebhookParts {
  const { config } = b;
  let webhookQueue: JobQueue | null = null;
  const webhooks = createWebhookService({
    store: b.store,
    log: b.log,
    guard: createUrlPolicy({ allowPrivateNetworks: config.crawlAllowPrivateNetworks }),
    queue: () => webhookQueue!,
    config: { retryDelaysMs: config.webhookRetryDelaysMs, timeoutMs: config.webhookTimeoutMs, disableAfterFailures: config.webhookDisableAfterFailures },
  });
  webhookQueue = queues.create({
    name: "webhook",
    handlers: { [WEBHOOK_JOB_KIND]: (job) => webhooks.handle(job) },
    concurrency: 4,
    recovery: [webhooks.recover],
  });
  return { webhooks, webhookQueue };
}

/** Told when documents of a source were indexed (a document.indexed or source.synced event). */
export interface IndexedHook {
  sourceIndexed?: (tenantId: string, sourceId: string) => void;
}

/** The webhook emitter, telling `hook` of every event that says a source's documents were indexed. */
export function withIndexedHook(webhooks: WebhookEmitter, hook: IndexedHook): WebhookEmitter {
  return {
    emit: async (tenantId, event, data, scope = {}) => {
      if ((event === "document.indexed" || event === "source.synced") && scope.sourceId) hook.sourceIndexed?.(tenantId, scope.sourceId);
      return webhooks.emit(tenantId, event, data, scope);
    },
  };
}

/** After an ingest job (or the queue giving up on one): document.indexed or document.failed. */
export async function emitDocumentEvent(webhooks: WebhookEmitter, store: Store, job: Pick<QueuedJob, "tenant_id" | "subject" | "kind">): Promise<void> {
  if (job.kind !== "ingest") return;
  const doc = await store.content.getDocument(job.tenant_id, job.subject).catch(() => null);
  if (!doc || (doc.status !== "indexed" && doc.status !== "failed")) return;
  const data = { document_id: doc.id, data_source_id: doc.data_source_id, source: doc.source, title: doc.title, status: doc.status, error: doc.error, chunk_count: doc.chunk_count };
  await webhooks.emit(job.tenant_id, doc.status === "indexed" ? "document.indexed" : "document.failed", data, { sourceId: doc.data_source_id });
}

/**
 * Source schedules: the service, and in a worker process a timer that starts due syncs (every
 * process may tick; the store's compare-and-set lets one of them run each due time).
 */
export function assembleSchedules(b: { store: Store; log: Logger; config: Config; workers: boolean }, crawls: Pick<CrawlService, "create" | "syncGit">) {
  const schedules = createScheduleService({ store: b.store, log: b.log, startCrawl: (p, body) => crawls.create(p, body), startGitSync: (p, id) => crawls.syncGit(p, id) });
  let timer: NodeJS.Timeout | null = null;
  return {
    schedules,
    start() {
      if (!b.workers || timer) return;
      timer = setInterval(() => void schedules.tick().catch((err: unknown) => b.log.warn({ err }, "schedule check failed")), b.config.scheduleCheckMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
