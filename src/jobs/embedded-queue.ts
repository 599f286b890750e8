// The embedded mode's queue: jobs live in the database (durable across crashes), a small pool of
// in-process workers claims them one at a time, retries with exponential backoff, and jobs left
// `running` by a process that died are requeued at start. The scale-out queue implements the same
// JobQueue interface.
import type { Logger } from "pino";
import type { ContentStore, JobRow } from "../store/content-types.js";

export type JobHandler = (job: JobRow) => Promise<void>;

/** A failure that retrying cannot fix; the job ends at once. */
export class PermanentJobError extends Error {}

export interface JobQueue {
  start(): Promise<void>;
  /** wake idle workers: a job was just queued */
  notify(): void;
  /** stop claiming, wait for running jobs (up to timeoutMs), then return */
  stop(timeoutMs?: number): Promise<void>;
  running(): boolean;
  /** abort signal of the running job with this subject, if any (cancel of a crawl) */
  signalFor(subject: string): AbortSignal | null;
}

export interface QueueOptions {
  store: ContentStore;
  handlers: Record<string, JobHandler>;
  concurrency: number;
  log: Logger;
  /** called when a job ran out of attempts or failed permanently */
  onGiveUp?: (job: JobRow, error: string) => Promise<void>;
  idlePollMs?: number;
}

const backoffMs = (attempt: number) => Math.min(300_000, 1000 * 2 ** (attempt - 1));

export function createEmbeddedQueue(opts: QueueOptions): JobQueue {
  const kinds = Object.keys(opts.handlers);
  const poll = opts.idlePollMs ?? 500;
  let active = false;
  let wake: (() => void) | null = null;
  const loops: Promise<void>[] = [];
  const inFlight = new Map<string, AbortController>();

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

  async function runOne(job: JobRow): Promise<void> {
    const ctl = new AbortController();
    inFlight.set(job.subject, ctl);
    const started = Date.now();
    try {
      await opts.handlers[job.kind](Object.assign(job, { signal: ctl.signal }));
      await opts.store.completeJob(job.id);
      opts.log.debug({ job: job.id, kind: job.kind, subject: job.subject, ms: Date.now() - started }, "job done");
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      const permanent = err instanceof PermanentJobError || job.attempts >= job.max_attempts;
      if (permanent) {
        await opts.store.failJob(job.id, msg, null);
        opts.log.warn({ job: job.id, kind: job.kind, subject: job.subject, attempts: job.attempts, err: msg }, "job failed");
        await opts.onGiveUp?.(job, msg);
      } else {
        const retryAt = new Date(Date.now() + backoffMs(job.attempts));
        await opts.store.failJob(job.id, msg, retryAt);
        opts.log.warn({ job: job.id, kind: job.kind, subject: job.subject, attempts: job.attempts, retryAt, err: msg }, "job will be retried");
      }
    } finally {
      inFlight.delete(job.subject);
    }
  }

  async function loop(): Promise<void> {
    while (active) {
      let job: JobRow | null = null;
      try {
        job = await opts.store.claimJob(kinds, new Date());
      } catch (err) {
        opts.log.error({ err }, "could not claim a job");
      }
      if (!job) {
        await sleep();
        continue;
      }
      await runOne(job);
    }
  }

  return {
    async start() {
      if (active) return;
      // each queue recovers only its own kinds, so several queues can share the jobs table
      const requeued = await opts.store.requeueRunningJobs(kinds);
      const orphans = kinds.includes("ingest") ? await opts.store.requeueOrphans() : 0;
      if (requeued || orphans) opts.log.info({ kinds, requeued, orphans }, "resuming interrupted jobs");
      active = true;
      for (let i = 0; i < opts.concurrency; i++) loops.push(loop());
    },
    notify() {
      wake?.();
    },
    async stop(timeoutMs = 10_000) {
      if (!active) return;
      active = false;
      wake?.();
      // running jobs are not aborted: they finish, or stay `running` and are requeued at next start
      await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, timeoutMs))]);
      loops.length = 0;
    },
    running: () => active,
    signalFor: (subject) => inFlight.get(subject)?.signal ?? null,
  };
}

/** The handler's view of a job: the row plus the signal that aborts it. */
export type RunningJob = JobRow & { signal: AbortSignal };
