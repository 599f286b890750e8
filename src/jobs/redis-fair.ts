// Fair dispatch in front of BullMQ. BullMQ's open-source edition has no per-tenant groups (a Pro
// feature), so jobs wait in per-tenant Redis lists and a dispatcher hands them to the BullMQ queue
// round-robin over the tenants, keeping at most one job waiting there. Whatever the backlog of
// one tenant, another tenant's first job is the next one dispatched, and starts as soon as one
// running job ends. A job is visible as "queued" (deduplicated per subject) until a worker starts
// it, and "live" while it runs.
import type { Redis } from "ioredis";
import type { Queue } from "bullmq";
import type { NewJob } from "../store/content-types.js";

/** what travels in a BullMQ job's data */
export interface FairJob {
  id: string;
  tenant_id: string;
  kind: string;
  subject: string;
  payload: Record<string, unknown>;
  max_attempts: number;
  /** epoch ms before which it must not run */
  not_before?: number;
}

// KEYS: queued marker, live marker, job data, tenant list, members set, ring list, cancel flag
// ARGV: id, job json, tenant, unlessLive
const ENQUEUE = `
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('DEL', KEYS[7])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('RPUSH', KEYS[4], ARGV[1])
if redis.call('SADD', KEYS[5], ARGV[3]) == 1 then redis.call('RPUSH', KEYS[6], ARGV[3]) end
return 1`;

// after dispatching the head of a tenant's list: pop it, move the tenant to the end of the ring
// (or out of it when its list is empty). KEYS: tenant list, ring, members, job data. ARGV: tenant, id
const ADVANCE = `
if redis.call('LINDEX', KEYS[1], 0) == ARGV[2] then redis.call('LPOP', KEYS[1]) end
redis.call('DEL', KEYS[4])
redis.call('LREM', KEYS[2], 0, ARGV[1])
if redis.call('LLEN', KEYS[1]) > 0 then redis.call('RPUSH', KEYS[2], ARGV[1]) else redis.call('SREM', KEYS[3], ARGV[1]) end
return 1`;

/** deletes KEYS[1] only if it still holds ARGV[1] */
const DEL_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export class FairLists {
  constructor(
    private readonly redis: Redis,
    /** e.g. "quarry:fair:ingest" */
    private readonly ns: string,
  ) {}

  private k = {
    ring: () => `${this.ns}:ring`,
    members: () => `${this.ns}:members`,
    tenant: (t: string) => `${this.ns}:t:${t}`,
    job: (id: string) => `${this.ns}:job:${id}`,
    queued: (kind: string, subject: string) => `${this.ns}:queued:${kind}:${subject}`,
    live: (kind: string, subject: string) => `${this.ns}:live:${kind}:${subject}`,
    cancel: (kind: string, subject: string) => `${this.ns}:cancel:${kind}:${subject}`,
    lock: () => `${this.ns}:dispatch-lock`,
  };

  async add(job: NewJob, id: string): Promise<boolean> {
    const data: FairJob = {
      id,
      tenant_id: job.tenant_id,
      kind: job.kind,
      subject: job.subject,
      payload: job.payload ?? {},
      max_attempts: job.max_attempts ?? 5,
      ...(job.delayMs ? { not_before: Date.now() + job.delayMs } : {}),
    };
    const k = this.k;
    const r = await this.redis.eval(
      ENQUEUE,
      7,
      k.queued(job.kind, job.subject),
      k.live(job.kind, job.subject),
      k.job(id),
      k.tenant(job.tenant_id),
      k.members(),
      k.ring(),
      k.cancel(job.kind, job.subject),
      id,
      JSON.stringify(data),
      job.tenant_id,
      job.unlessLive ? "1" : "0",
    );
    return r === 1;
  }

  /** the queued job of a subject (waiting here or in BullMQ, not started yet) */
  queuedId(kind: string, subject: string): Promise<string | null> {
    return this.redis.get(this.k.queued(kind, subject));
  }

  /** forgets a queued job (the dispatcher skips it) and flags the subject for cancel */
  async cancel(kind: string, subject: string, id: string | null): Promise<void> {
    const m = this.redis.multi();
    if (id) m.del(this.k.job(id)).eval(DEL_IF, 1, this.k.queued(kind, subject), id);
    m.set(this.k.cancel(kind, subject), "1", "PX", 10 * 60_000);
    await m.exec();
  }

  cancelRequested(kind: string, subject: string): Promise<boolean> {
    return this.redis.exists(this.k.cancel(kind, subject)).then((n) => n === 1);
  }

  /** a worker starts the job: it is no longer "queued"; false when another job of the subject runs */
  async begin(job: FairJob, ttlMs: number): Promise<boolean> {
    const ok = await this.redis.set(this.k.live(job.kind, job.subject), job.id, "PX", ttlMs, "NX");
    if (!ok) return (await this.redis.get(this.k.live(job.kind, job.subject))) === job.id;
    await this.redis.eval(DEL_IF, 1, this.k.queued(job.kind, job.subject), job.id);
    return true;
  }

  async renew(job: FairJob, ttlMs: number): Promise<void> {
    await this.redis.set(this.k.live(job.kind, job.subject), job.id, "PX", ttlMs, "XX");
  }

  async end(job: FairJob): Promise<void> {
    await this.redis.eval(DEL_IF, 1, this.k.live(job.kind, job.subject), job.id);
  }

  /** jobs waiting in the per-tenant lists */
  async backlog(): Promise<number> {
    const tenants = await this.redis.smembers(this.k.members());
    if (tenants.length === 0) return 0;
    const p = this.redis.pipeline();
    for (const t of tenants) p.llen(this.k.tenant(t));
    const res = (await p.exec()) ?? [];
    return res.reduce((n, [, v]) => n + Number(v ?? 0), 0);
  }

  /**
   * Moves jobs into BullMQ while it has no job waiting, taking tenants in ring order and passing
   * over a tenant that already has `cap` jobs there (active or waiting) while others wait.
   */
  async dispatch(queue: Queue, cap: number, add: (job: FairJob) => Promise<void>): Promise<number> {
    const token = Math.random().toString(36).slice(2);
    if (!(await this.redis.set(this.k.lock(), token, "PX", 5_000, "NX"))) return 0;
    let moved = 0;
    try {
      for (let i = 0; i < 1_000; i++) {
        if ((await queue.getJobCountByTypes("waiting", "prioritized")) > 0) break;
        const step = await this.dispatchOne(queue, cap, add);
        if (step === "none") break;
        if (step === "moved") moved++;
      }
    } finally {
      await this.redis.eval(DEL_IF, 1, this.k.lock(), token);
    }
    return moved;
  }

  private async dispatchOne(queue: Queue, cap: number, add: (job: FairJob) => Promise<void>): Promise<"none" | "moved" | "skipped"> {
    const ring = await this.redis.lrange(this.k.ring(), 0, -1);
    if (ring.length === 0) return "none";
    const busy = new Map<string, number>();
    if (ring.length > 1) {
      for (const j of await queue.getJobs(["active", "waiting"])) {
        const t = (j?.data as FairJob | undefined)?.tenant_id;
        if (t) busy.set(t, (busy.get(t) ?? 0) + 1);
      }
    }
    const tenant = ring.length > 1 ? ring.find((t) => (busy.get(t) ?? 0) < cap) : ring[0];
    if (!tenant) return "none";
    const id = await this.redis.lindex(this.k.tenant(tenant), 0);
    const raw = id ? await this.redis.get(this.k.job(id)) : null;
    if (raw) await add(JSON.parse(raw) as FairJob);
    await this.redis.eval(ADVANCE, 4, this.k.tenant(tenant), this.k.ring(), this.k.members(), id ? this.k.job(id) : `${this.ns}:none`, tenant, id ?? "");
    return raw ? "moved" : "skipped";
  }
}
