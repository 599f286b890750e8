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

/** what the dispatcher, the worker, the timers and the JobQueue methods of one queue share */
interface BullState {
  spec: QueueSpec;
  o: BullOptions;
  log: Logger;
  lockMs: number;
  connection: RedisOptions;
  redis: Redis;
  sub: Redis;
  queue: Queue;
  fair: FairLists;
  cancelChannel: string;
  local: Map<string, Local>;
  timers: NodeJS.Timeout[];
  worker: Worker | null;
  accepting: boolean;
  dispatching: Promise<unknown> | null;
  /** a dispatch asked for while one ran: run once more after it */
  again: boolean;
  onCancel: (channel: string, message: string) => void;
  /** the recovery hooks are handed the queue itself */
  api: JobQueue | null;
}

function newBullState(spec: QueueSpec, o: BullOptions, base: RedisOptions, redis: Redis, sub: Redis): BullState {
  const log = o.log;
  const connection = { ...base, maxRetriesPerRequest: null };
  const queue = new Queue(spec.name, { prefix: o.prefix, connection: { ...connection, enableOfflineQueue: false } });
  queue.on("error", (err) => log.debug({ err: err.message, queue: spec.name }, "bullmq queue"));
  const s: BullState = {
    spec,
    o,
    log,
    lockMs: o.lockMs ?? 30_000,
    connection,
    redis,
    sub,
    queue,
    fair: new FairLists(redis, `${o.prefix}:fair:${spec.name}`),
    cancelChannel: `${o.prefix}:fair:${spec.name}:cancel`,
    local: new Map(),
    timers: [],
    worker: null,
    accepting: false,
    dispatching: null,
    again: false,
    onCancel: () => undefined,
    api: null,
  };
  // one listener per queue, so stop() can take exactly this one off the shared subscriber
  s.onCancel = (channel, message) => onCancelMessage(s, channel, message);
  return s;
}

async function addToBull(s: BullState, job: FairJob): Promise<void> {
  await s.queue.add(job.kind, job, {
    jobId: job.id,
    delay: job.not_before ? Math.max(0, job.not_before - Date.now()) : undefined,
    attempts: job.max_attempts,
    backoff: { type: "exponential", delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600 },
  });
}

function dispatch(s: BullState): void {
  if (!s.accepting || s.redis.status !== "ready") return;
  if (s.dispatching) {
    s.again = true;
    return;
  }
  s.dispatching = s.fair
    .dispatch(s.queue, s.o.tenantConcurrency, (job) => addToBull(s, job))
    .catch((err: unknown) => s.log.warn({ err, queue: s.spec.name }, "job dispatch failed; retried shortly"))
    .finally(() => {
      s.dispatching = null;
      if (s.again) {
        s.again = false;
        dispatch(s);
      }
    });
}

function onCancelMessage(s: BullState, channel: string, message: string): void {
  if (channel !== s.cancelChannel) return;
  const [kind, subject] = JSON.parse(message) as [string, string];
  for (const run of s.local.values()) if (run.kind === kind && run.subject === subject) abortRun(run);
}

function abortRun(run: Local): void {
  if (run.cancelled) return;
  run.cancelled = true;
  run.ctl.abort(new Error("The job was cancelled."));
}

async function processJob(s: BullState, job: Job<FairJob>, token?: string): Promise<void> {
  const { fair, lockMs } = s;
  const data = job.data;
  if (!(await fair.begin(data, lockMs))) {
    // one running job per subject: a newer one waits for the older to finish
    await job.moveToDelayed(Date.now() + 1_000, token);
    throw new DelayedError();
  }
  const run: Local = { ctl: new AbortController(), kind: data.kind, subject: data.subject, cancelled: false };
  s.local.set(data.id, run);
  const keepLive = setInterval(() => {
    void fair.renew(data, lockMs).catch(() => undefined);
    void fair.cancelRequested(data.kind, data.subject).then((c) => c && abortRun(run), () => undefined);
  }, Math.max(500, Math.floor(lockMs / 10)));
  try {
    if (await fair.cancelRequested(data.kind, data.subject)) return;
    const attempts = job.attemptsMade + 1;
    await s.spec.handlers[data.kind]({ ...data, attempts, signal: run.ctl.signal });
  } catch (err) {
    if (run.cancelled) return; // a cancelled job is over, however its handler ended
    const msg = err instanceof Error ? err.message : String(err);
    const final = err instanceof PermanentJobError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    s.log.warn({ job: data.id, kind: data.kind, subject: data.subject, attempts: job.attemptsMade + 1, err: msg, final }, final ? "job failed" : "job will be retried");
    if (!final) throw err;
    await s.spec.onGiveUp?.({ ...data, attempts: job.attemptsMade + 1 }, msg);
    throw new UnrecoverableError(msg);
  } finally {
    clearInterval(keepLive);
    s.local.delete(data.id);
    await fair.end(data).catch(() => undefined);
  }
}

async function recover(s: BullState): Promise<void> {
  let n = 0;
  if (s.api) for (const h of s.spec.recovery ?? []) n += await h(s.api);
  if (n) s.log.info({ queue: s.spec.name, recovered: n }, "resuming interrupted jobs");
}

function every(s: BullState, ms: number, fn: () => void | Promise<void>): void {
  const t = setInterval(() => void Promise.resolve(fn()).catch((err: unknown) => s.log.warn({ err, queue: s.spec.name }, "queue upkeep failed")), ms);
  t.unref();
  s.timers.push(t);
}

async function openQueue(s: BullState): Promise<void> {
  if (s.accepting) return;
  s.accepting = true;
  s.sub.on("message", s.onCancel);
  // not awaited: with Redis away it completes on reconnect (the flag in redis-fair covers the gap)
  s.sub.subscribe(s.cancelChannel).catch((err: Error) => s.log.warn({ err: err.message }, "cancel channel unavailable"));
  every(s, s.o.dispatchEveryMs ?? 1_000, () => dispatch(s));
}

async function enqueueJob(s: BullState, job: NewJob): Promise<string | null> {
  if (!s.accepting || s.redis.status !== "ready") throw new QueueUnavailableError("The job queue (Redis) is unreachable.");
  let added: boolean;
  const id = randomUUID();
  try {
    added = await s.fair.add(job, id);
  } catch (err) {
    throw new QueueUnavailableError(`The job queue (Redis) is unreachable: ${(err as Error).message}`);
  }
  if (added) dispatch(s);
  return added ? id : null;
}

async function cancelJob(s: BullState, kind: string, subject: string): Promise<boolean> {
  try {
    const id = await s.fair.queuedId(kind, subject);
    await s.fair.cancel(kind, subject, id);
    if (id) await s.queue.remove(id).catch(() => 0); // waiting in BullMQ (a started job is locked and stays)
    const listeners = await s.redis.publish(s.cancelChannel, JSON.stringify([kind, subject]));
    return id !== null || listeners > 0;
  } catch (err) {
    // the handler's own checks (e.g. a crawl watching its row) still stop it
    s.log.warn({ err: (err as Error).message, kind, subject }, "cancel could not reach the queue");
    return false;
  }
}

async function startWorker(s: BullState): Promise<void> {
  await openQueue(s);
  if (s.worker) return;
  const { spec, log } = s;
  const worker = new Worker<FairJob>(spec.name, (job, token) => processJob(s, job, token), {
    prefix: s.o.prefix,
    connection: s.connection,
    concurrency: spec.concurrency,
    lockDuration: s.lockMs,
    stalledInterval: s.lockMs,
    maxStalledCount: 3,
  });
  s.worker = worker;
  const kick = () => dispatch(s);
  worker.on("error", (err) => log.debug({ err: err.message, queue: spec.name }, "bullmq worker"));
  // At-least-once made visible: a job whose lock lapsed (its worker died, or stalled longer than
  // the lock) runs again, and these lines say which job that was and why.
  worker.on("stalled", (jobId) => log.warn({ event: "job_stalled", job: jobId, queue: spec.name }, "a job's worker stopped holding its lock; the job runs again"));
  worker.on("lockRenewalFailed", (jobIds) =>
    log.warn({ event: "job_lock_lost", jobs: jobIds, queue: spec.name }, "could not renew the lock of running jobs; another run of them may follow"),
  );
  worker.on("active", kick);
  worker.on("completed", kick);
  worker.on("failed", kick);
  await recover(s).catch((err: unknown) => log.warn({ err }, "job recovery failed; retried later"));
  every(s, s.o.recoveryEveryMs ?? 300_000, () => recover(s));
  dispatch(s);
}

async function stopWorker(s: BullState, timeoutMs: number): Promise<void> {
  s.accepting = false;
  for (const t of s.timers.splice(0)) clearInterval(t);
  s.sub.off("message", s.onCancel);
  const w = s.worker;
  s.worker = null;
  if (!w) return;
  // running jobs finish; past the timeout (or with Redis away) they are left to the
  // stalled-job check of another worker
  const graceful = s.redis.status === "ready" && (await within(w.close(), timeoutMs));
  if (!graceful) {
    // BullMQ's close() with Redis away leaves rejected connection promises nobody awaits
    // (unhandled rejections at shutdown): only disconnect then
    if (s.redis.status === "ready") await within(w.close(true), 2_000);
    await within(w.disconnect(), 1_000);
  }
}

async function closeQueue(s: BullState, api: JobQueue): Promise<void> {
  await api.stop();
  await s.dispatching;
  // with Redis away BullMQ would wait for it; the connections are dropped either way
  if (s.redis.status === "ready") await within(s.queue.close(), 2_000); // see stopWorker
  await within(s.queue.disconnect(), 1_000);
}

function createBullQueue(spec: QueueSpec, o: BullOptions, base: RedisOptions, redis: Redis, sub: Redis): JobQueue {
  const s = newBullState(spec, o, base, redis, sub);
  const api: JobQueue = {
    kinds: Object.keys(spec.handlers),
    backend: "BullMQ on Redis",
    enqueue: (job: NewJob) => enqueueJob(s, job),
    cancel: (kind, subject) => cancelJob(s, kind, subject),
    open: () => openQueue(s),
    start: () => startWorker(s),
    stop: (timeoutMs = 10_000) => stopWorker(s, timeoutMs),
    available: () => s.accepting && redis.status === "ready",
    workers: () => (s.worker ? spec.concurrency : 0),
    async pending() {
      const [backlog, inBull] = await Promise.all([s.fair.backlog(), s.queue.getJobCountByTypes("waiting", "prioritized", "active", "delayed")]);
      return backlog + inBull;
    },
    close: () => closeQueue(s, api),
  };
  s.api = api;
  return api;
}
