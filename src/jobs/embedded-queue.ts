// The queue over the database (SQLite embedded, or PostgreSQL through the same ContentStore job
// methods): jobs are rows (durable across crashes), workers claim them one at a time under a
// lease they renew while the job runs, retries back off exponentially, and a job whose worker
// died (lease run out, or its process gone from this host) is taken over by another worker.
// Jobs are taken round-robin across tenants (fair.ts).
import { createSleepers, type Sleepers } from "./sleepers.js";
import type { Logger } from "pino";
import type { JobRow, NewJob } from "../store/content-types.js";
import type { JobTable } from "../store/content-store.js";
import { RoundRobin } from "./fair.js";
import { deadOwners, newOwner, releaseOwner } from "./owner.js";
import {
  PermanentJobError,
  QueueUnavailableError,
  type FairnessOptions,
  type GiveUpHook,
  type JobHandler,
  type JobQueue,
  type RecoveryHook,
} from "./types.js";

export { PermanentJobError, QueueUnavailableError };
export type { JobHandler, JobQueue, RunningJob } from "./types.js";

export interface QueueOptions {
  store: JobTable;
  handlers: Record<string, JobHandler>;
  concurrency: number;
  log: Logger;
  fairness?: FairnessOptions;
  onGiveUp?: GiveUpHook;
  /** run at start and every recoveryEveryMs by the workers */
  recovery?: RecoveryHook[];
  idlePollMs?: number;
  /** how long a claim holds without renewal; renewed every leaseMs / 10 */
  leaseMs?: number;
  recoveryEveryMs?: number;
  /** a label for health output */
  backend?: string;
}

export const backoffMs = (attempt: number) => Math.min(300_000, 1000 * 2 ** (attempt - 1));

interface InFlight {
  ctl: AbortController;
  kind: string;
  subject: string;
  cancelled: boolean;
}

/** what the worker loops, timers and the JobQueue methods share */
interface EmbeddedState {
  opts: QueueOptions;
  store: JobTable;
  log: Logger;
  kinds: string[];
  poll: number;
  leaseMs: number;
  tenantConcurrency: number;
  rr: RoundRobin;
  accepting: boolean;
  active: boolean;
  owner: string;
  sleepers: Sleepers;
  loops: Promise<void>[];
  inFlight: Map<string, InFlight>;
  timers: NodeJS.Timeout[];
  /** the recovery hooks are handed the queue itself */
  queue: JobQueue | null;
}

function newState(opts: QueueOptions): EmbeddedState {
  return {
    opts,
    store: opts.store,
    log: opts.log,
    kinds: Object.keys(opts.handlers),
    poll: opts.idlePollMs ?? 500,
    leaseMs: opts.leaseMs ?? 30_000,
    tenantConcurrency: opts.fairness?.tenantConcurrency ?? 1,
    rr: new RoundRobin(),
    accepting: false,
    active: false,
    owner: "",
    sleepers: createSleepers(),
    loops: [],
    inFlight: new Map(),
    timers: [],
    queue: null,
  };
}

/** waits one poll interval, cut short by an enqueue, a recovered job or a stop */
function sleep(s: EmbeddedState): Promise<void> {
  return s.sleepers.sleep(s.poll);
}

async function settle(s: EmbeddedState, job: JobRow, err: unknown): Promise<void> {
  const msg = err instanceof Error ? err.message : String(err);
  const ctx = { job: job.id, kind: job.kind, subject: job.subject, attempts: job.attempts, err: msg };
  if (err instanceof PermanentJobError || job.attempts >= job.max_attempts) {
    if (!(await s.store.failJob(job.id, s.owner, msg, null))) return; // taken over meanwhile
    s.log.warn(ctx, "job failed");
    await s.opts.onGiveUp?.(job, msg);
  } else {
    const retryAt = new Date(Date.now() + backoffMs(job.attempts));
    await s.store.failJob(job.id, s.owner, msg, retryAt);
    s.log.warn({ ...ctx, retryAt }, "job will be retried");
  }
}

async function runOne(s: EmbeddedState, job: JobRow): Promise<void> {
  const run: InFlight = { ctl: new AbortController(), kind: job.kind, subject: job.subject, cancelled: false };
  s.inFlight.set(job.id, run);
  const started = Date.now();
  try {
    await s.opts.handlers[job.kind]({ ...job, signal: run.ctl.signal });
    await s.store.completeJob(job.id, s.owner);
    s.log.debug({ job: job.id, kind: job.kind, subject: job.subject, ms: Date.now() - started }, "job done");
  } catch (err) {
    // a cancelled job is over, however its handler ended
    if (run.cancelled) await s.store.completeJob(job.id, s.owner);
    else await settle(s, job, err);
  } finally {
    s.inFlight.delete(job.id);
  }
}

/** the next job, taken round-robin across the tenants that have ready jobs */
async function claimNext(s: EmbeddedState): Promise<JobRow | null> {
  const now = new Date();
  const loads = await s.store.jobTenantLoads(s.kinds, now);
  for (const turn of s.rr.order(loads, s.tenantConcurrency)) {
    const job = await s.store.claimJob(s.kinds, now, {
      owner: s.owner,
      leaseUntil: new Date(now.getTime() + s.leaseMs),
      tenantId: turn.tenant_id,
      tenantCap: turn.cap,
    });
    if (job) {
      s.rr.markServed(job.tenant_id);
      return job;
    }
  }
  return null;
}

async function workerLoop(s: EmbeddedState): Promise<void> {
  while (s.active) {
    let job: JobRow | null = null;
    try {
      job = await claimNext(s);
    } catch (err) {
      s.log.error({ err }, "could not claim a job");
    }
    if (!job) {
      await sleep(s);
      continue;
    }
    await runOne(s, job);
  }
}

/** renews this worker's leases and aborts the jobs another process asked to cancel */
async function renew(s: EmbeddedState): Promise<void> {
  if (s.inFlight.size === 0) return;
  const cancel = await s.store.renewJobLeases(s.owner, new Date(Date.now() + s.leaseMs));
  for (const id of cancel) abort(s.inFlight.get(id));
}

function abort(run: InFlight | undefined): void {
  if (!run || run.cancelled) return;
  run.cancelled = true;
  run.ctl.abort(new Error("The job was cancelled."));
}

/** takes over jobs of dead workers, then lets each kind's wiring put back what it knows is missing */
async function recover(s: EmbeddedState, hooks: boolean): Promise<void> {
  const dead = deadOwners(await s.store.jobOwners(s.kinds));
  const requeued = await s.store.requeueStalledJobs(s.kinds, new Date(), dead);
  let recovered = 0;
  if (hooks && s.queue) for (const h of s.opts.recovery ?? []) recovered += await h(s.queue);
  if (requeued || recovered) s.log.info({ kinds: s.kinds, requeued, recovered }, "resuming interrupted jobs");
  if (requeued || recovered) s.sleepers.wakeAll();
}

function every(s: EmbeddedState, ms: number, fn: () => Promise<void>, what: string): void {
  const t = setInterval(() => void fn().catch((err: unknown) => s.log.warn({ err, kinds: s.kinds }, what)), ms);
  t.unref();
  s.timers.push(t);
}

async function cancelJobs(s: EmbeddedState, kind: string, subject: string): Promise<boolean> {
  const n = await s.store.cancelJobs(kind, subject);
  let local = false;
  for (const run of s.inFlight.values()) {
    if (run.kind === kind && run.subject === subject) {
      abort(run);
      local = true;
    }
  }
  return n > 0 || local;
}

async function startWorkers(s: EmbeddedState): Promise<void> {
  if (s.active) return;
  s.owner = newOwner();
  s.accepting = true;
  await recover(s, true);
  s.active = true;
  for (let i = 0; i < s.opts.concurrency; i++) s.loops.push(workerLoop(s));
  every(s, Math.max(200, Math.floor(s.leaseMs / 10)), () => renew(s), "could not renew job leases");
  every(s, Math.max(1_000, Math.floor(s.leaseMs / 3)), () => recover(s, false), "could not requeue stalled jobs");
  every(s, s.opts.recoveryEveryMs ?? 300_000, () => recover(s, true), "job recovery failed");
}

async function stopWorkers(s: EmbeddedState, timeoutMs: number): Promise<void> {
  s.accepting = false;
  if (!s.active) return;
  s.active = false;
  s.sleepers.wakeAll();
  for (const t of s.timers.splice(0)) clearInterval(t);
  // running jobs are not aborted: they finish, or are taken over once this owner is gone
  await Promise.race([Promise.all(s.loops), new Promise((r) => setTimeout(r, timeoutMs))]);
  s.loops.length = 0;
  releaseOwner(s.owner);
}

export function createEmbeddedQueue(opts: QueueOptions): JobQueue {
  const s = newState(opts);
  const queue: JobQueue = {
    kinds: s.kinds,
    backend: opts.backend ?? "embedded queue",
    async enqueue(job: NewJob) {
      if (!s.accepting) throw new QueueUnavailableError("The job queue is not running.");
      const id = await s.store.enqueueJob(job);
      if (id) s.sleepers.wakeAll();
      return id;
    },
    cancel: (kind, subject) => cancelJobs(s, kind, subject),
    async open() {
      s.accepting = true;
    },
    start: () => startWorkers(s),
    stop: (timeoutMs = 10_000) => stopWorkers(s, timeoutMs),
    available: () => s.accepting,
    workers: () => (s.active ? opts.concurrency : 0),
    pending: () => s.store.pendingJobCount(s.kinds),
    async close() {
      await queue.stop();
    },
  };
  s.queue = queue;
  return queue;
}
