// The queue seam: services enqueue and cancel through a JobQueue and handlers receive RunningJobs;
// which backend holds the jobs (the database, or BullMQ on Redis) is the runtime's choice.
import type { Json, NewJob } from "../store/content-types.js";

export type { NewJob };

/** A job as a handler sees it. Ids are opaque strings. */
export interface QueuedJob {
  id: string;
  tenant_id: string;
  kind: string;
  subject: string;
  payload: Json;
  /** attempts so far, this one included */
  attempts: number;
  max_attempts: number;
}

/** The handler's view of a job: the job plus the signal that aborts it (cancel, shutdown). */
export type RunningJob = QueuedJob & { signal: AbortSignal };

export type JobHandler = (job: RunningJob) => Promise<void>;

/** A failure that retrying cannot fix; the job ends at once. */
export class PermanentJobError extends Error {}

/** The queue cannot take the job now (stopped, or its backend unreachable): the API answers 503. */
export class QueueUnavailableError extends Error {}

/** Called once a job has failed for good (attempts used up, or a PermanentJobError). */
export type GiveUpHook = (job: QueuedJob, error: string) => Promise<void>;

/**
 * Run by the workers at start and now and then: lets the wiring of a job kind put back jobs that
 * only its own data knows are missing (e.g. documents left queued by a crash before enqueue).
 */
export type RecoveryHook = (queue: Pick<JobQueue, "enqueue">) => Promise<number>;

export interface JobQueue {
  /** the job kinds this queue carries */
  readonly kinds: readonly string[];
  /** a short description for GET /health */
  readonly backend: string;
  /**
   * Queues a job; returns its id, or null when an existing job covers it (one is already queued
   * for the subject, or running when `unlessLive`). QueueUnavailableError when it cannot.
   */
  enqueue(job: NewJob): Promise<string | null>;
  /**
   * Cancels the jobs of a subject: a queued one is removed, a running one has its signal aborted,
   * in whichever process runs it. True when there was something to cancel.
   */
  cancel(kind: string, subject: string): Promise<boolean>;
  /** accepts jobs without running any (an API-only process) */
  open(): Promise<void>;
  /** accepts jobs and runs the workers of this process */
  start(): Promise<void>;
  /** stops accepting and claiming, waits for running jobs (up to timeoutMs), then returns */
  stop(timeoutMs?: number): Promise<void>;
  /** true while jobs are accepted and the backend answers */
  available(): boolean;
  /** workers running in this process (0 in an API-only process) */
  workers(): number;
  /** queued and running jobs of this queue's kinds, over all processes */
  pending(): Promise<number>;
  /** stop() and release the backend's connections */
  close(): Promise<void>;
}

/** Fair-scheduling settings shared by every backend. */
export interface FairnessOptions {
  /**
   * Most jobs one tenant runs at once while another tenant has jobs waiting; a tenant alone
   * may use every worker.
   */
  tenantConcurrency: number;
}

/** One queue: its name (for keys and logs), its handlers and how many workers run them. */
export interface QueueSpec {
  name: string;
  handlers: Record<string, JobHandler>;
  concurrency: number;
  onGiveUp?: GiveUpHook;
  recovery?: RecoveryHook[];
}

export interface QueueBackend {
  readonly name: string;
  create(spec: QueueSpec): JobQueue;
  /** releases shared connections once every queue is closed */
  close(): Promise<void>;
}
