// The queue over the database (SQLite embedded, or PostgreSQL through the same ContentStore job
// methods): jobs are rows (durable across crashes), workers claim them one at a time under a
// lease they renew while the job runs, retries back off exponentially, and a job whose worker
// died (lease run out, or its process gone from this host) is taken over by another worker.
// Jobs are taken round-robin across tenants (fair.ts).
import type { Logger } from "pino";
import type { JobRow, JobStoreMethods, NewJob } from "../store/content-types.js";
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

type JobStore = JobStoreMethods;

export interface QueueOptions {
  store: JobStore;
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

export function createEmbeddedQueue(opts: QueueOptions): JobQueue {
  const kinds = Object.keys(opts.handlers);
  const poll = opts.idlePollMs ?? 500;
  const leaseMs = opts.leaseMs ?? 30_000;
  const tenantConcurrency = opts.fairness?.tenantConcurrency ?? 1;
  const store = opts.store;
  const log = opts.log;
  const rr = new RoundRobin();
  let accepting = false;
  let active = false;
  let owner = "";
  let wake: (() => void) | null = null;
  const loops: Promise<void>[] = [];
  const inFlight = new Map<string, InFlight>();
  const timers: NodeJS.Timeout[] = [];

  const sleep = () =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, poll);
      function done() {
        clearTimeout(t);
        if (wake === done) wake = null;
        resolve();
      }
      const prev = wake;
      wake = () => {
        prev?.();
        done();
      };
    });

  async function settle(job: JobRow, err: unknown): Promise<void> {
    const msg = err instanceof Error ? err.message : String(err);
    const ctx = { job: job.id, kind: job.kind, subject: job.subject, attempts: job.attempts, err: msg };
    if (err instanceof PermanentJobError || job.attempts >= job.max_attempts) {
      if (!(await store.failJob(job.id, owner, msg, null))) return; // taken over meanwhile
      log.warn(ctx, "job failed");
      await opts.onGiveUp?.(job, msg);
    } else {
      const retryAt = new Date(Date.now() + backoffMs(job.attempts));
      await store.failJob(job.id, owner, msg, retryAt);
      log.warn({ ...ctx, retryAt }, "job will be retried");
    }
  }

  async function runOne(job: JobRow): Promise<void> {
    const run: InFlight = { ctl: new AbortController(), kind: job.kind, subject: job.subject, cancelled: false };
    inFlight.set(job.id, run);
    const started = Date.now();
    try {
      await opts.handlers[job.kind]({ ...job, signal: run.ctl.signal });
      await store.completeJob(job.id, owner);
      log.debug({ job: job.id, kind: job.kind, subject: job.subject, ms: Date.now() - started }, "job done");
    } catch (err) {
      // a cancelled job is over, however its handler ended
      if (run.cancelled) await store.completeJob(job.id, owner);
      else await settle(job, err);
    } finally {
      inFlight.delete(job.id);
    }
  }

  /** the next job, taken round-robin across the tenants that have ready jobs */
  async function claimNext(): Promise<JobRow | null> {
    const now = new Date();
    const loads = await store.jobTenantLoads(kinds, now);
    for (const turn of rr.order(loads, tenantConcurrency)) {
      const job = await store.claimJob(kinds, now, {
        owner,
        leaseUntil: new Date(now.getTime() + leaseMs),
        tenantId: turn.tenant_id,
        tenantCap: turn.cap,
      });
      if (job) {
        rr.markServed(job.tenant_id);
        return job;
      }
    }
    return null;
  }

  async function loop(): Promise<void> {
    while (active) {
      let job: JobRow | null = null;
      try {
        job = await claimNext();
      } catch (err) {
        log.error({ err }, "could not claim a job");
      }
      if (!job) {
        await sleep();
        continue;
      }
      await runOne(job);
    }
  }

  /** renews this worker's leases and aborts the jobs another process asked to cancel */
  async function renew(): Promise<void> {
    if (inFlight.size === 0) return;
    const cancel = await store.renewJobLeases(owner, new Date(Date.now() + leaseMs));
    for (const id of cancel) abort(inFlight.get(id));
  }

  function abort(run: InFlight | undefined): void {
    if (!run || run.cancelled) return;
    run.cancelled = true;
    run.ctl.abort(new Error("The job was cancelled."));
  }

  /** takes over jobs of dead workers, then lets each kind's wiring put back what it knows is missing */
  async function recover(hooks: boolean): Promise<void> {
    const dead = deadOwners(await store.jobOwners(kinds));
    const requeued = await store.requeueStalledJobs(kinds, new Date(), dead);
    let recovered = 0;
    if (hooks) for (const h of opts.recovery ?? []) recovered += await h(queue);
    if (requeued || recovered) log.info({ kinds, requeued, recovered }, "resuming interrupted jobs");
    if (requeued || recovered) wake?.();
  }

  function every(ms: number, fn: () => Promise<void>, what: string): void {
    const t = setInterval(() => void fn().catch((err: unknown) => log.warn({ err, kinds }, what)), ms);
    t.unref();
    timers.push(t);
  }

  const queue: JobQueue = {
    kinds,
    backend: opts.backend ?? "embedded queue",
    async enqueue(job: NewJob) {
      if (!accepting) throw new QueueUnavailableError("The job queue is not running.");
      const id = await store.enqueueJob(job);
      if (id) wake?.();
      return id;
    },
    async cancel(kind, subject) {
      const n = await store.cancelJobs(kind, subject);
      let local = false;
      for (const run of inFlight.values()) {
        if (run.kind === kind && run.subject === subject) {
          abort(run);
          local = true;
        }
      }
      return n > 0 || local;
    },
    async open() {
      accepting = true;
    },
    async start() {
      if (active) return;
      owner = newOwner();
      accepting = true;
      await recover(true);
      active = true;
      for (let i = 0; i < opts.concurrency; i++) loops.push(loop());
      every(Math.max(200, Math.floor(leaseMs / 10)), renew, "could not renew job leases");
      every(Math.max(1_000, Math.floor(leaseMs / 3)), () => recover(false), "could not requeue stalled jobs");
      every(opts.recoveryEveryMs ?? 300_000, () => recover(true), "job recovery failed");
    },
    async stop(timeoutMs = 10_000) {
      accepting = false;
      if (!active) return;
      active = false;
      wake?.();
      for (const t of timers.splice(0)) clearInterval(t);
      // running jobs are not aborted: they finish, or are taken over once this owner is gone
      await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, timeoutMs))]);
      loops.length = 0;
      releaseOwner(owner);
    },
    available: () => accepting,
    workers: () => (active ? opts.concurrency : 0),
    pending: () => store.pendingJobCount(kinds),
    async close() {
      await queue.stop();
    },
  };
  return queue;
}
