// The scale-out shape as operators run it: 2 API processes (`serve --no-worker`) and 2 worker
// processes (`worker`) on one fresh PostgreSQL database, one Redis (a BullMQ prefix of this run)
// and no shared disk: each process has a DATA_DIR of its own, the originals live in PostgreSQL.
// Uploads and a crawl of a loopback site go through both APIs while
// searches run through both; one worker is SIGKILLed mid-ingest. At the end every accepted
// document is indexed exactly once (chunk positions without duplicates or gaps, one finished
// ingest job per upload in the workers' logs), the crawl handed over every page once, and the
// query count of the tenant equals the searches answered, across both API processes.
// TWO_BY_TWO_STORE=sqlite runs the same processes on one shared SQLite DATA_DIR instead (to tell a
// harness problem from a PostgreSQL one); the default, and what CI runs, is PostgreSQL.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { noModelEnv, PLATFORM_KEY } from "../kit/index.js";
import { freePort, killQuarries, spawnQuarry, stopQuarries, until, type QuarryProcess } from "../helpers/process.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { dropPrefix, REDIS_URL, redisReachable, testPrefix } from "../jobs/redis.js";
import { DOCS_FULL, docsSite, serve, type FixtureServer } from "../crawl/fixtures.js";

const BATCHES = 4;
const PER_BATCH = 8;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  killQuarries();
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});


async function call(base: string, method: string, p: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const isForm = body instanceof FormData;
  const r = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && !isForm ? { "content-type": "application/json" } : {}) },
    body: isForm ? body : body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A report long enough that indexing it takes a noticeable moment (so a kill lands mid-ingest). */
function report(batch: number, i: number): string {
  const sections = Array.from({ length: 12 }, (_, s) => {
    const lines = Array.from({ length: 30 }, (_, k) => `Line ${k} of section ${s} in report ${batch}-${i} covers quay ${k * s} and crane ${i + k}.`);
    return `## Section ${s}\n\n${lines.join(" ")}`;
  });
  return `# Report ${batch}-${i}\n\n${sections.join("\n\n")}\n`;
}

interface LogEvent {
  event?: string;
  msg?: string;
  job?: string;
  jobs?: string[];
  document?: string;
  status?: string;
}

function logEvents(output: string): LogEvent[] {
  return output
    .split("\n")
    .filter((l) => l.startsWith("{") && /"(ingest_job|job_stalled|job_lock_lost)"/.test(l))
    .map((l) => JSON.parse(l) as LogEvent);
}

/** finished ingest jobs in a process's JSON log lines: their job ids by document */
function finishedJobs(output: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of logEvents(output)) {
    if (e.event === "ingest_job" && e.msg === "ingest job finished" && e.status === "indexed") out.set(e.document!, [...(out.get(e.document!) ?? []), e.job!]);
  }
  return out;
}

/** jobs a process logged as having lost their lock (so BullMQ runs them again: at-least-once) */
function relockedJobs(output: string): Set<string> {
  const out = new Set<string>();
  for (const e of logEvents(output)) {
    if (e.event === "job_stalled" && e.job) out.add(e.job);
    if (e.event === "job_lock_lost") for (const j of e.jobs ?? []) out.add(j);
  }
  return out;
}

const ON_SQLITE = process.env.TWO_BY_TWO_STORE === "sqlite";
const skip = (ON_SQLITE ? null : await pgUnavailableReason()) ?? ((await redisReachable()) ? null : `Redis is not reachable at ${REDIS_URL}`);
if (skip) console.log(`skipping the 2 API + 2 worker test: ${skip}`);

interface Deployment {
  urls: string[];
  workers: QuarryProcess[];
  db: TestDatabase | null;
  site: FixtureServer;
}

/** A fresh database, Redis prefix and loopback site; 2 API and 2 worker processes on them, each on its own DATA_DIR (one shared on SQLite). */
async function startDeployment(): Promise<Deployment> {
  const db = ON_SQLITE ? null : await createTestDatabase("quarry_2x2");
  if (db) cleanups.push(() => db.drop());
  const prefix = testPrefix();
  cleanups.push(() => dropPrefix(prefix));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-2x2-"));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const site = await serve(docsSite());
  cleanups.push(() => site.close());
  const env = {
    ...noModelEnv(),
    ...(db ? { DATABASE_URL: db.url } : {}),
    REDIS_URL,
    QUEUE_PREFIX: prefix,
    QUEUE_LOCK_MS: "5000", // the SIGKILLed worker's jobs are taken over within 10 s, not a minute
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    DEFAULT_PLAN: "enterprise",
    CRAWL_ALLOW_PRIVATE_NETWORKS: "true",
    INGEST_WORKERS: "1",
    RATE_LIMIT_PER_MINUTE: "0",
  };
  const ports = [await freePort(), await freePort()];
  const ownDir = () => {
    if (ON_SQLITE) return {};
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-2x2-own-"));
    cleanups.push(async () => fs.rmSync(d, { recursive: true, force: true }));
    return { DATA_DIR: d };
  };
  for (const [i, port] of ports.entries()) spawnQuarry(`api ${i + 1}`, ["serve", "--no-worker"], { ...env, ...ownDir(), PORT: String(port) });
  const workers = [1, 2].map((i) => spawnQuarry(`worker ${i}`, ["worker"], { ...env, ...ownDir() }));
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  for (const u of urls) await until(() => fetch(`${u}/health`).then((r) => r.status === 200), `${u}/health`, 90_000);
  for (const u of urls) {
    const h = await (await fetch(`${u}/health`)).json();
    expect(h.checks.queue.detail).toMatch(/no workers in this process/);
  }
  return { urls, workers, db, site };
}

/** Searches through both APIs, alternating, until stopped; counts the answered ones. */
function startSearches(urls: string[], key: string, collectionId: string): { stop(): Promise<{ answered: number; errors: string[] }> } {
  let searching = true;
  let answered = 0;
  const errors: string[] = [];
  const loop = (async () => {
    for (let n = 0; searching; n++) {
      const r = await call(urls[n % 2], "POST", "/search", key, { query: `crane quay report ${n % 7}`, collection_id: collectionId, top_k: 5 }).catch(
        (err: Error) => ({ status: 0, body: err.message }),
      );
      if (r.status === 200) answered++;
      else errors.push(`${r.status} ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const stop = async () => {
    searching = false;
    await loop;
    return { answered, errors };
  };
  // a failing assertion must not leave the loop calling processes that are being killed
  cleanups.push(async () => void (await stop()));
  return { stop };
}

async function uploadBatch(url: string, key: string, sourceId: string, b: number): Promise<string[]> {
  const form = new FormData();
  form.append("data_source_id", sourceId);
  for (let i = 0; i < PER_BATCH; i++) form.append("files", new Blob([report(b, i)], { type: "text/markdown" }), `report-${b}-${i}.md`);
  const r = await call(url, "POST", "/documents/upload", key, form);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return (r.body as any[]).map((d) => d.id as string);
}

/** Every document's chunks: positions 0..n-1 once each, n = its chunk_count (over HTTP, and in SQL on PostgreSQL). */
async function checkChunks(d: Deployment, key: string, docs: any[]): Promise<void> {
  for (const doc of docs) {
    const r = await call(d.urls[1], "GET", `/documents/${doc.id}/chunks?limit=1000`, key);
    expect(r.status).toBe(200);
    expect(r.body.total, doc.source).toBe(doc.chunk_count);
    expect((r.body.chunks as any[]).map((c) => c.position), doc.source).toEqual(Array.from({ length: doc.chunk_count }, (_, i) => i));
  }
  if (!d.db) return;
  const c = new pg.Client({ connectionString: d.db.url });
  await c.connect();
  try {
    const dup = await c.query("SELECT document_id, position, count(*)::int AS n FROM chunks GROUP BY 1, 2 HAVING count(*) > 1");
    expect(dup.rows).toEqual([]);
    const off = await c.query(
      `SELECT d.id, d.chunk_count, count(c.*)::int AS n FROM documents d LEFT JOIN chunks c ON c.tenant_id = d.tenant_id AND c.document_id = d.id
       GROUP BY d.id, d.chunk_count HAVING count(c.*) <> d.chunk_count`,
    );
    expect(off.rows).toEqual([]);
  } finally {
    await c.end();
  }
}

/**
 * One finished ingest job per upload across both workers' logs (the killed one's up to its death),
 * except where a job ran again because its lock lapsed, which a worker logs (job_stalled,
 * job_lock_lost): the killed worker's job that it logged as finished but had not yet reported to
 * the queue, or, on a loaded machine, a survivor's job whose lock renewal came too late. BullMQ is
 * at-least-once; that such a document is still indexed once is checkChunks' job (no duplicate
 * chunks, counts right). A second run nobody logged a reason for fails, with the document's lines.
 */
function checkJobLogs(workers: QuarryProcess[], accepted: string[], pendingAtKill: number): void {
  const outputs = workers.map((w) => w.output());
  const killed = finishedJobs(outputs[0]!);
  const survivor = finishedJobs(outputs[1]!);
  const relocked = new Set([...relockedJobs(outputs[0]!), ...relockedJobs(outputs[1]!)]);
  let redelivered = 0;
  for (const id of accepted) {
    const jobs = [...(killed.get(id) ?? []), ...(survivor.get(id) ?? [])];
    if (jobs.length > 1 && jobs.some((j) => relocked.has(j))) {
      redelivered++;
      continue;
    }
    const lines = outputs.map((o, i) => `worker ${i + 1}:\n${o.split("\n").filter((l) => l.includes(id) || jobs.some((j) => l.includes(j))).join("\n")}`);
    expect(jobs.length, `finished ingest jobs of ${id} (killed worker ${killed.get(id)?.length ?? 0}, survivor ${survivor.get(id)?.length ?? 0}); its log lines:\n${lines.join("\n")}`).toBe(1);
  }
  expect(survivor.size).toBeGreaterThan(0); // the survivor took over
  console.log(`2x2: ${pendingAtKill} documents pending at the kill; ${redelivered} finished again after a lapsed lock`);
}

async function waitFor(url: string, key: string, route: string, done: (body: any) => boolean, what: string, ms: number): Promise<any> {
  return until(async () => {
    const r = await call(url, "GET", route, key);
    return r.status === 200 && done(r.body) ? r.body : null;
  }, what, ms);
}

describe.skipIf(skip !== null)("2 API processes and 2 workers on one PostgreSQL and one Redis", () => {
  it("index every accepted upload and crawled page once, survive a SIGKILLed worker and count queries exactly", async () => {
    const d = await startDeployment();
    const { urls, workers } = d;
    // the tenant made on one API process is known to the other: keys are in the database
    const t = await call(urls[0], "POST", "/tenants", PLATFORM_KEY, { name: "Two by two" });
    expect(t.status).toBe(201);
    const key = t.body.admin_key.key as string;
    const src = (await call(urls[1], "POST", "/data-sources", key, { name: "reports", source_type: "upload" })).body.id as string;
    const col = (await call(urls[0], "POST", "/collections", key, { name: "All", data_source_ids: [src] })).body.id as string;
    const searches = startSearches(urls, key, col);

    const accepted = [...(await uploadBatch(urls[0], key, src, 0)), ...(await uploadBatch(urls[1], key, src, 1))];
    const crawl = await call(urls[1], "POST", "/crawl", key, { url: `${d.site.base}/`, collection_id: col, max_depth: 10, page_limit: 100 });
    expect(crawl.status, JSON.stringify(crawl.body)).toBe(202);

    // kill worker 1 once it has finished a job, while uploads are still waiting
    await until(async () => finishedJobs(workers[0].output()).size > 0, "worker 1 to finish an ingest job", 90_000);
    const listed = (await call(urls[0], "GET", `/documents?data_source_id=${src}`, key)).body as any[];
    const pendingAtKill = listed.filter((x) => x.status !== "indexed").length;
    workers[0].child.kill("SIGKILL");
    await new Promise((r) => (workers[0].child.exitCode !== null || workers[0].child.signalCode !== null ? r(null) : workers[0].child.once("exit", r)));
    expect(pendingAtKill).toBeGreaterThan(0);
    for (let b = 2; b < BATCHES; b++) accepted.push(...(await uploadBatch(urls[b % 2], key, src, b)));

    const all = (l: any[], n: number) => l.length === n && l.every((x) => x.status === "indexed" || (x.source_type === "website" && x.status === "failed"));
    const final = await waitFor(urls[0], key, `/documents?data_source_id=${src}`, (l) => all(l, accepted.length), "every upload indexed by the survivor", 150_000);
    const job = await waitFor(urls[0], key, `/crawl/${crawl.body.id}`, (j) => ["completed", "failed", "cancelled"].includes(j.status), "the crawl", 90_000);
    const pages = await waitFor(urls[1], key, `/documents?data_source_id=${crawl.body.data_source_id}`, (l) => all(l, DOCS_FULL.length), "the crawled pages", 90_000);
    // a job the killed worker held may have written its document before dying: the document looks
    // indexed while the job waits for its lock to expire and the survivor to run it again
    await until(
      async () => /\b0 jobs pending/.test(((await (await fetch(`${urls[0]}/health`)).json()) as any).checks.queue.detail),
      "the queue to drain",
      90_000,
    );
    const { answered, errors } = await searches.stop();

    expect(new Set(final.map((x: any) => x.id))).toEqual(new Set(accepted));
    expect(final.every((x: any) => x.status === "indexed" && x.chunk_count > 0)).toBe(true);
    expect(job).toMatchObject({ status: "completed", pages_crawled: DOCS_FULL.length });
    expect(new Set(pages.map((x: any) => x.source)).size).toBe(DOCS_FULL.length);
    await checkChunks(d, key, [...final, ...pages.filter((x: any) => x.status === "indexed")]);
    checkJobLogs(workers, accepted, pendingAtKill);

    // the query quota: every answered search counted once, whichever process answered it
    expect(errors).toEqual([]);
    expect(answered).toBeGreaterThan(10);
    for (const u of urls) expect((await call(u, "GET", "/me", key)).body.usage.queries_used).toBe(answered);

    await stopQuarries();
  }, 300_000);
});
