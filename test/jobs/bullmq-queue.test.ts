// The BullMQ queue against the real Redis (REDIS_TEST_URL, default 127.0.0.1:6379), each test
// under its own key prefix. Skipped with a printed reason when Redis does not answer.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import pino from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createBullBackend } from "../../src/jobs/bullmq-queue.js";
import { PermanentJobError, QueueUnavailableError, type JobHandler } from "../../src/jobs/types.js";
import type { QueueBackend, QueueSpec } from "../../src/jobs/index.js";
import { startServer } from "../kit/index.js";
import { dropPrefix, REDIS_URL, redisReachable, testPrefix } from "./redis.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const log = pino({ level: "silent" });
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

let reachable = false;
beforeAll(async () => {
  reachable = await redisReachable();
  if (!reachable) console.log(`skipping BullMQ tests: Redis is not reachable at ${REDIS_URL}`);
});

async function backend(prefix: string, o: { lockMs?: number; log?: pino.Logger } = {}): Promise<QueueBackend> {
  const b = await createBullBackend({ url: REDIS_URL, prefix, tenantConcurrency: 1, log: o.log ?? log, lockMs: o.lockMs ?? 2_000, dispatchEveryMs: 100 });
  cleanup.push(() => b.close());
  return b;
}

function prefix(): string {
  const p = testPrefix();
  cleanup.push(() => dropPrefix(p));
  return p;
}

const spec = (handler: JobHandler, o: Partial<QueueSpec> = {}): QueueSpec => ({ name: "work", concurrency: 1, handlers: { work: handler }, ...o });

const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("BullMQ queue", () => {
  it("runs jobs once, deduplicates a queued subject, retries with backoff and gives up on a permanent failure", async (ctx) => {
    if (!reachable) return ctx.skip();
    const b = await backend(prefix());
    const runs: [string, number, number][] = [];
    const gaveUp: string[] = [];
    const q = b.create(
      spec(
        async (job) => {
          runs.push([job.subject, job.attempts, Date.now()]);
          if (job.subject === "flaky" && job.attempts === 1) throw new Error("try again");
          if (job.subject === "bad") throw new PermanentJobError("cannot be done");
        },
        { onGiveUp: async (job, err) => void gaveUp.push(`${job.subject}: ${err}`) },
      ),
    );
    await q.open();
    const id = await q.enqueue({ tenant_id: "t1", kind: "work", subject: "ok" });
    expect(typeof id).toBe("string");
    expect(await q.enqueue({ tenant_id: "t1", kind: "work", subject: "ok" })).toBeNull();
    await q.enqueue({ tenant_id: "t1", kind: "work", subject: "flaky" });
    await q.enqueue({ tenant_id: "t1", kind: "work", subject: "bad" });
    await q.start();
    await until(() => runs.filter((r) => r[0] === "flaky").length === 2 && gaveUp.length === 1, "retry and give-up");
    await until(async () => (await q.pending()) === 0, "the queue to drain");
    expect(runs.filter((r) => r[0] === "ok")).toHaveLength(1);
    expect(runs.filter((r) => r[0] === "bad")).toHaveLength(1);
    const flaky = runs.filter((r) => r[0] === "flaky");
    expect(flaky[1][2] - flaky[0][2]).toBeGreaterThanOrEqual(900);
    expect(gaveUp).toEqual(["bad: cannot be done"]);
  }, 60_000);

  it("a job held by a worker process killed with SIGKILL is taken over by another worker, which logs the takeover", async (ctx) => {
    if (!reachable) return ctx.skip();
    const p = prefix();
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "test/jobs/bull-worker-child.ts", REDIS_URL, p], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanup.push(() => void (child.exitCode === null && child.kill("SIGKILL")));
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    await until(() => out.includes("ready"), "the child worker", 30_000);
    const api = (await backend(p, { lockMs: 1_000 })).create(spec(async () => undefined));
    await api.open();
    const jobId = await api.enqueue({ tenant_id: "t1", kind: "work", subject: "doc-1" });
    await until(() => out.includes("started doc-1"), "the child to take the job");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));

    const done: string[] = [];
    const lines: { event?: string; job?: string; msg: string }[] = [];
    const logged = pino({ level: "warn" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const worker = (await backend(p, { lockMs: 1_000, log: logged })).create(spec(async (job) => void done.push(job.subject)));
    await worker.start();
    await until(() => done.length === 1, "the job to be taken over", 30_000);
    expect(done).toEqual(["doc-1"]);
    // an operator reading the logs can tell why the job ran again, and which job it was
    expect(lines.filter((l) => l.event === "job_stalled").map((l) => l.job)).toEqual([jobId]);
    await until(async () => (await worker.pending()) === 0, "the queue to drain");
  }, 60_000);

  it("cancel reaches the worker running the job in another process, and removes a queued one", async (ctx) => {
    if (!reachable) return ctx.skip();
    const p = prefix();
    const ran: string[] = [];
    let aborted = false;
    const worker = (await backend(p)).create(
      spec(
        (job) =>
          new Promise<void>((resolve) => {
            ran.push(job.subject);
            job.signal.addEventListener("abort", () => {
              aborted = true;
              resolve();
            });
          }),
      ),
    );
    const api = (await backend(p)).create(spec(async () => undefined));
    await api.open();
    await worker.start();
    await api.enqueue({ tenant_id: "t1", kind: "work", subject: "crawl-1" });
    await until(() => ran.length === 1, "the job to start");
    await api.enqueue({ tenant_id: "t1", kind: "work", subject: "crawl-2" });
    expect(await api.cancel("work", "crawl-2")).toBe(true);
    expect(await api.cancel("work", "crawl-1")).toBe(true);
    await until(() => aborted, "the running job to be aborted");
    await until(async () => (await api.pending()) === 0, "the queue to drain");
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual(["crawl-1"]);
  }, 60_000);

  it("takes jobs round-robin across tenants", async (ctx) => {
    if (!reachable) return ctx.skip();
    const order: string[] = [];
    const q = (await backend(prefix())).create(spec(async (job) => void order.push(job.tenant_id)));
    await q.open();
    for (let i = 0; i < 20; i++) await q.enqueue({ tenant_id: "big", kind: "work", subject: `b${i}` });
    for (let i = 0; i < 3; i++) await q.enqueue({ tenant_id: "small", kind: "work", subject: `s${i}` });
    await q.start();
    await until(() => order.length === 23, "every job");
    const smallAt = order.flatMap((t, i) => (t === "small" ? [i] : []));
    expect(smallAt[2]).toBeLessThanOrEqual(6);
  }, 60_000);

  it("with Redis unreachable: enqueue refuses, /health says the queue is down and POST /crawl answers 503", async () => {
    const b = await createBullBackend({ url: "redis://127.0.0.1:1", prefix: testPrefix(), tenantConcurrency: 1, log });
    const q = b.create(spec(async () => undefined));
    await q.open();
    expect(q.available()).toBe(false);
    await expect(q.enqueue({ tenant_id: "t1", kind: "work", subject: "x" })).rejects.toBeInstanceOf(QueueUnavailableError);
    await b.close();

    const s = await startServer({ REDIS_URL: "redis://127.0.0.1:1", CRAWL_ALLOW_PRIVATE_NETWORKS: "true" }, { listen: false });
    cleanup.push(() => s.close());
    const health = await s.call("GET", "/health");
    expect(health.status).toBe(503);
    expect(health.body.checks.queue.status).toBe("down");
    const { adminKey } = await s.tenant();
    const r = await s.call("POST", "/crawl", { key: adminKey, json: { url: "http://127.0.0.1:9/" } });
    expect(r.status).toBe(503);
    expect(r.body.detail).toMatch(/crawl queue is not running/);
    expect((await s.call("GET", "/crawl", { key: adminKey })).body).toEqual([]);
  }, 60_000);
});
