// The scale-out queue: BullMQ on Redis. Durable (Redis persistence), retried with exponential
// backoff, and a job held by a worker that died is taken over by another one (BullMQ's lock and
// stalled-job check). Fair across tenants through the dispatcher in redis-fair.ts. A cancel is
// published to every process and also left as a flag, so it reaches the worker running the job
// even if that worker starts it a moment later.
import { randomUUID } from "node:crypto";
import { Redis, type RedisOptions } from "ioredis";
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Logger } from "pino";
import { FairLists, type FairJob } from "./redis-fair.js";
import { PermanentJobError, QueueUnavailableError, type JobQueue, type NewJob, type QueueBackend, type QueueSpec } from "./types.js";

export interface BullOptions {
  url: string;
  prefix: string;
  tenantConcurrency: number;
  log: Logger;
  /** BullMQ lock of a running job; a worker silent this long is presumed dead */
  lockMs?: number;
  /** how often idle processes look for jobs to dispatch */
  dispatchEveryMs?: number;
  recoveryEveryMs?: number;
}

const baseOptions = (url: string): RedisOptions => {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    tls: u.protocol === "rediss:" ? {} : undefined,
    // fail fast while Redis is away (the API answers 503) and keep reconnecting
    retryStrategy: (n) => Math.min(2_000, 100 * n),
  };
};

export async function createBullBackend(o: BullOptions): Promise<QueueBackend> {
  const base = baseOptions(o.url);
  const commands = new Redis({ ...base, enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  const subscriber = new Redis({ ...base, lazyConnect: true });
  commands.on("error", (err) => o.log.debug({ err: err.message }, "redis (queue commands)"));
  subscriber.on("error", (err) => o.log.debug({ err: err.message }, "redis (queue cancel channel)"));
  await commands.connect().catch((err: Error) => o.log.error({ err: err.message }, "Redis is unreachable; the queue is down until it answers"));
  await subscriber.connect().catch(() => undefined);
  const queues: JobQueue[] = [];
  return {
    name: "bullmq",
    create(spec) {
      const q = createBullQueue(spec, o, base, commands, subscriber);
      queues.push(q);
      return q;
    },
    async close() {
      for (const q of queues) await q.close();
      commands.disconnect();
      subscriber.disconnect();
    },
  };
}

/** true when `p` settled within `ms` */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);

interface Local {
  ctl: AbortController;
  kind: string;
  subject: string;
  cancelled: boolean;
}

function createBullQueue(spec: QueueSpec, o: BullOptions, base: RedisOptions, redis: Redis, sub: Redis): JobQueue {
  const log = o.log;
  const kinds = Object.keys(spec.handlers);
  const lockMs = o.lockMs ?? 30_000;
  const connection = { ...base, maxRetriesPerRequest: null };
  const queue = new Queue(spec.name, { prefix: o.prefix, connection: { ...connection, enableOfflineQueue: false } });
  queue.on("error", (err) => log.debug({ err: err.message, queue: spec.name }, "bullmq queue"));
  const fair = new FairLists(redis, `${o.prefix}:fair:${spec.name}`);
  const cancelChannel = `${o.prefix}:fair:${spec.name}:cancel`;
  const local = new Map<string, Local>();
  const timers: NodeJS.Timeout[] = [];
  let worker: Worker | null = null;
  let accepting = false;

  const addToBull = async (job: FairJob) => {
    await queue.add(job.kind, job, {
      jobId: job.id,
      delay: job.not_before ? Math.max(0, job.not_before - Date.now()) : undefined,
      attempts: job.max_attempts,
      backoff: { type: "exponential", delay: 1_000 },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  };
  let dispatching: Promise<unknown> | null = null;
  let again = false;
  const dispatch = () => {
    if (!accepting || redis.status !== "ready") return;
    if (dispatching) {
      again = true;
      return;
    }
    dispatching = fair
      .dispatch(queue, o.tenantConcurrency, addToBull)
      .catch((err: unknown) => log.warn({ err, queue: spec.name }, "job dispatch failed; retried shortly"))
      .finally(() => {
        dispatching = null;
        if (again) {
          again = false;
          dispatch();
        }
      });
  };

  const onCancel = (channel: string, message: string) => {
    if (channel !== cancelChannel) return;
    const [kind, subject] = JSON.parse(message) as [string, string];
    for (const run of local.values()) if (run.kind === kind && run.subject === subject) abortRun(run);
  };
  function abortRun(run: Local): void {
    if (run.cancelled) return;
    run.cancelled = true;
    run.ctl.abort(new Error("The job was cancelled."));
  }

  async function processJob(job: Job<FairJob>, token?: string): Promise<void> {
    const data = job.data;
    if (!(await fair.begin(data, lockMs))) {
      // one running job per subject: a newer one waits for the older to finish
      await job.moveToDelayed(Date.now() + 1_000, token);
      throw new DelayedError();
    }
    const run: Local = { ctl: new AbortController(), kind: data.kind, subject: data.subject, cancelled: false };
    local.set(data.id, run);
    const keepLive = setInterval(() => {
      void fair.renew(data, lockMs).catch(() => undefined);
      void fair.cancelRequested(data.kind, data.subject).then((c) => c && abortRun(run), () => undefined);
    }, Math.max(500, Math.floor(lockMs / 10)));
    try {
      if (await fair.cancelRequested(data.kind, data.subject)) return;
      const attempts = job.attemptsMade + 1;
      await spec.handlers[data.kind]({ ...data, attempts, signal: run.ctl.signal });
    } catch (err) {
      if (run.cancelled) return; // a cancelled job is over, however its handler ended
      const msg = err instanceof Error ? err.message : String(err);
      const final = err instanceof PermanentJobError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      log.warn({ job: data.id, kind: data.kind, subject: data.subject, attempts: job.attemptsMade + 1, err: msg, final }, final ? "job failed" : "job will be retried");
      if (!final) throw err;
      await spec.onGiveUp?.({ ...data, attempts: job.attemptsMade + 1 }, msg);
      throw new UnrecoverableError(msg);
    } finally {
      clearInterval(keepLive);
      local.delete(data.id);
      await fair.end(data).catch(() => undefined);
    }
  }

  async function recover(): Promise<void> {
    let n = 0;
    for (const h of spec.recovery ?? []) n += await h(api);
    if (n) log.info({ queue: spec.name, recovered: n }, "resuming interrupted jobs");
  }

  function every(ms: number, fn: () => void | Promise<void>): void {
    const t = setInterval(() => void Promise.resolve(fn()).catch((err: unknown) => log.warn({ err, queue: spec.name }, "queue upkeep failed")), ms);
    t.unref();
    timers.push(t);
  }

  async function open(): Promise<void> {
    if (accepting) return;
    accepting = true;
    sub.on("message", onCancel);
    // not awaited: with Redis away it completes on reconnect (the flag in redis-fair covers the gap)
    sub.subscribe(cancelChannel).catch((err: Error) => log.warn({ err: err.message }, "cancel channel unavailable"));
    every(o.dispatchEveryMs ?? 1_000, dispatch);
  }

  const api: JobQueue = {
    kinds,
    backend: "BullMQ on Redis",
    async enqueue(job: NewJob) {
      if (!accepting || redis.status !== "ready") throw new QueueUnavailableError("The job queue (Redis) is unreachable.");
      let added: boolean;
      const id = randomUUID();
      try {
        added = await fair.add(job, id);
      } catch (err) {
        throw new QueueUnavailableError(`The job queue (Redis) is unreachable: ${(err as Error).message}`);
      }
      if (added) dispatch();
      return added ? id : null;
    },
    async cancel(kind, subject) {
      try {
        const id = await fair.queuedId(kind, subject);
        await fair.cancel(kind, subject, id);
        if (id) await queue.remove(id).catch(() => 0); // waiting in BullMQ (a started job is locked and stays)
        const listeners = await redis.publish(cancelChannel, JSON.stringify([kind, subject]));
        return id !== null || listeners > 0;
      } catch (err) {
        // the handler's own checks (e.g. a crawl watching its row) still stop it
        log.warn({ err: (err as Error).message, kind, subject }, "cancel could not reach the queue");
        return false;
      }
    },
    open,
    async start() {
      await open();
      if (worker) return;
      worker = new Worker<FairJob>(spec.name, processJob, {
        prefix: o.prefix,
        connection,
        concurrency: spec.concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        maxStalledCount: 3,
      });
      worker.on("error", (err) => log.debug({ err: err.message, queue: spec.name }, "bullmq worker"));
      worker.on("active", dispatch);
      worker.on("completed", dispatch);
      worker.on("failed", dispatch);
      await recover().catch((err: unknown) => log.warn({ err }, "job recovery failed; retried later"));
      every(o.recoveryEveryMs ?? 300_000, recover);
      dispatch();
    },
    async stop(timeoutMs = 10_000) {
      accepting = false;
      for (const t of timers.splice(0)) clearInterval(t);
      sub.off("message", onCancel);
      const w = worker;
      worker = null;
      if (!w) return;
      // running jobs finish; past the timeout (or with Redis away) they are left to the
      // stalled-job check of another worker
      const graceful = redis.status === "ready" && (await within(w.close(), timeoutMs));
      if (!graceful) {
        await within(w.close(true), 2_000);
        await within(w.disconnect(), 1_000);
      }
    },
    available: () => accepting && redis.status === "ready",
    workers: () => (worker ? spec.concurrency : 0),
    async pending() {
      const [backlog, inBull] = await Promise.all([fair.backlog(), queue.getJobCountByTypes("waiting", "prioritized", "active", "delayed")]);
      return backlog + inBull;
    },
    async close() {
      await api.stop();
      await dispatching;
      // with Redis away BullMQ would wait for it; the connections are dropped either way
      await within(queue.close(), 2_000);
      await within(queue.disconnect(), 1_000);
    },
  };
  return api;
}
