// Picks the queue backend from the configuration: BullMQ on Redis when REDIS_URL is set, else the
// queue over the database's jobs table (SQLite embedded, or PostgreSQL). Every queue of a runtime
// (ingest, crawl) comes from the same backend.
import type { Logger } from "pino";
import type { JobTable } from "../store/content-store.js";
import { createEmbeddedQueue } from "./embedded-queue.js";
import type { QueueBackend } from "./types.js";

export * from "./types.js";

export interface BackendOptions {
  redisUrl: string | null;
  prefix: string;
  tenantConcurrency: number;
  /** BullMQ's job lock (QUEUE_LOCK_MS); the queue in the database has leases of its own */
  lockMs: number;
  store: JobTable;
  log: Logger;
}

export async function createQueueBackend(o: BackendOptions): Promise<QueueBackend> {
  if (o.redisUrl) {
    const { createBullBackend } = await import("./bullmq-queue.js");
    return createBullBackend({ url: o.redisUrl, prefix: o.prefix, tenantConcurrency: o.tenantConcurrency, lockMs: o.lockMs, log: o.log });
  }
  return {
    name: "embedded",
    create: (spec) =>
      createEmbeddedQueue({
        store: o.store,
        handlers: spec.handlers,
        concurrency: spec.concurrency,
        onGiveUp: spec.onGiveUp,
        recovery: spec.recovery,
        fairness: { tenantConcurrency: o.tenantConcurrency },
        log: o.log,
        backend: "queue in the database",
      }),
    close: async () => undefined,
  };
}
