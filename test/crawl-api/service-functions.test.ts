// The crawl service's functions alone, on a real SQLite store with stand-in queues: no HTTP
// server, no crawl of a site. The end-to-end behaviour is in crawl.test.ts and restart.test.ts.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { QueueUnavailableError, type NewJob, type RunningJob } from "../../src/jobs/types.js";
import { createUrlPolicy } from "../../src/crawl/url-policy.js";
import type { Principal } from "../../src/services/auth/auth.js";
import { ServiceError } from "../../src/services/errors.js";
import { RunningCrawls, type CrawlServiceDeps } from "../../src/services/crawl/crawl-types.js";
import { cancelCrawl, createCrawl, getCrawl, isSourceSyncing, retryCrawl } from "../../src/services/crawl/crawl-requests.js";
import { CrawlJobTracker, giveUpCrawl, handleCrawlJob, recoverCrawls } from "../../src/services/crawl/crawl-runner.js";
import { localFileStore } from "../../src/store/files.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import type { TenantRow } from "../../src/store/types.js";

const open: SqliteStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** A stand-in crawl queue that records what it was given. */
function fakeQueue(o: { available?: boolean; failEnqueue?: boolean } = {}) {
  const jobs: NewJob[] = [];
  const cancelled: string[] = [];
  return {
    jobs,
    cancelled,
    available: () => o.available ?? true,
    enqueue: async (job: NewJob) => {
      if (o.failEnqueue) throw new QueueUnavailableError("the queue stopped");
      jobs.push(job);
      return `job_${jobs.length}`;
    },
    cancel: async (_kind: string, subject: string) => {
      cancelled.push(subject);
      return true;
    },
  };
}

async function setup(queueOptions: Parameters<typeof fakeQueue>[0] = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-crawl-fns-"));
  const store = openSqliteStore(dataDir);
  open.push(store);
  const now = new Date().toISOString();
  const tenant: TenantRow = { id: `ten_${Math.random().toString(16).slice(2)}`, name: "T", slug: `t-${Math.random().toString(16).slice(2)}`, plan: "free", verified: true, created_at: now };
  await store.tenants.createWithKey(tenant, { id: `key_${Math.random().toString(16).slice(2)}`, tenant_id: tenant.id, name: "k", prefix: "qk_x", hash: Math.random().toString(16), scopes: ["admin"], created_at: now, expires_at: null, revoked_at: null, last_used_at: null });
  const queue = fakeQueue(queueOptions);
  const ingest = fakeQueue();
  const deps: CrawlServiceDeps = {
    store,
    files: localFileStore(path.join(dataDir, "files")),
    log: pino({ level: "silent" }),
    config: { allowPrivateNetworks: true, renderJs: false },
    queue: () => queue,
    ingestQueue: () => ingest,
    // public names must not be resolved from a test: everything is loopback
    guard: createUrlPolicy({ allowPrivateNetworks: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }] }),
  };
  const p: Principal = { tenant, scopes: ["admin"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
  return { store, deps, queue, p, tenant };
}

const kindOf = (fn: () => Promise<unknown>) =>
  fn().then(
    () => "resolved",
    (err: unknown) => (err instanceof ServiceError ? err.kind : String(err)),
  );

describe("createCrawl", () => {
  it("creates a website source with the crawl's settings and queues one job", async () => {
    const { store, deps, queue, p, tenant } = await setup();
    const out = await createCrawl(deps, p, { url: "http://127.0.0.1:9/docs/", page_limit: 7, include_paths: ["docs"] });
    expect(out).toMatchObject({ status: "queued", url: "http://127.0.0.1:9/docs/", page_limit: 7, max_depth: 2, include_paths: ["/docs"], pages_crawled: 0, render_js: false });
    const source = await store.content.getSource(tenant.id, out.data_source_id);
    expect(source).toMatchObject({ source_type: "website", name: "127.0.0.1:9" });
    expect(source?.configuration).toEqual({ url: "http://127.0.0.1:9/docs/", max_depth: 2, page_limit: 7, render_js: false, include_paths: ["/docs"] });
    expect(queue.jobs).toEqual([{ tenant_id: tenant.id, kind: "crawl", subject: out.id, max_attempts: 5 }]);
    expect(await isSourceSyncing(deps, out.data_source_id)).toBe(true);

    // a second crawl of the same source while the first is queued: 409
    expect(await kindOf(() => createCrawl(deps, p, { url: "http://127.0.0.1:9/", data_source_id: out.data_source_id }))).toBe("conflict");
  });

  it("refuses render_js where the deployment does not allow it, and a stopped queue, before writing anything", async () => {
    const { store, deps, p, tenant } = await setup({ available: false });
    expect(await kindOf(() => createCrawl(deps, p, { url: "http://127.0.0.1:9/", render_js: true }))).toBe("bad_request");
    expect(await kindOf(() => createCrawl(deps, p, { url: "http://127.0.0.1:9/" }))).toBe("unavailable");
    expect(await store.content.listSources(tenant.id)).toEqual([]);
  });

  it("a queue that goes away between the check and the enqueue leaves the crawl failed, and answers 503", async () => {
    const { store, deps, p, tenant } = await setup({ failEnqueue: true });
    expect(await kindOf(() => createCrawl(deps, p, { url: "http://127.0.0.1:9/" }))).toBe("unavailable");
    const [row] = await store.crawls.list(tenant.id, 10);
    expect(row).toMatchObject({ status: "failed", error: "The crawl queue was unavailable; the crawl did not start." });
  });
});

describe("cancel, retry, give up, recover", () => {
  it("cancel stops a queued crawl and tells the queue; a second cancel is 409; retry queues it again", async () => {
    const { deps, queue, p } = await setup();
    const running = new RunningCrawls();
    const created = await createCrawl(deps, p, { url: "http://127.0.0.1:9/" });
    const ctl = new AbortController();
    const done = running.add(created.id, ctl);
    expect((await cancelCrawl(deps, running, p, created.id)).status).toBe("cancelled");
    expect(ctl.signal.aborted).toBe(true);
    expect(queue.cancelled).toEqual([created.id]);
    done();
    expect(await kindOf(() => cancelCrawl(deps, running, p, created.id))).toBe("conflict");

    expect((await retryCrawl(deps, p, created.id)).status).toBe("queued");
    expect(queue.jobs.map((j) => j.subject)).toEqual([created.id, created.id]);
    expect(await kindOf(() => retryCrawl(deps, p, created.id))).toBe("conflict");
    expect(await kindOf(() => getCrawl(deps, p, "crawl_missing"))).toBe("not_found");
  });

  it("give-up marks the crawl and its source failed; other kinds are not its business", async () => {
    const { store, deps, p, tenant } = await setup();
    const created = await createCrawl(deps, p, { url: "http://127.0.0.1:9/" });
    await giveUpCrawl(deps, { subject: created.id, kind: "ingest" }, "boom");
    expect((await getCrawl(deps, p, created.id)).status).toBe("queued");
    await giveUpCrawl(deps, { subject: created.id, kind: "crawl" }, "attempts used up");
    expect(await getCrawl(deps, p, created.id)).toMatchObject({ status: "failed", error: "The crawl could not run: attempts used up" });
    expect((await store.content.getSource(tenant.id, created.data_source_id))?.error).toBe("The crawl could not run: attempts used up");
  });

  it("recovery queues every unfinished crawl again, unless its job is live", async () => {
    const { deps, p } = await setup();
    const a = await createCrawl(deps, p, { url: "http://127.0.0.1:9/a" });
    const b = await createCrawl(deps, p, { url: "http://127.0.0.2:9/b" });
    const queue = fakeQueue();
    expect(await recoverCrawls(deps, queue)).toBe(2);
    expect(queue.jobs.map((j) => [j.subject, j.unlessLive]).sort()).toEqual([[a.id, true], [b.id, true]].sort());
  });
});

describe("the job's lifecycle pieces", () => {
  it("RunningCrawls: shutdown aborts every running crawl and waits until each has wound down", async () => {
    const running = new RunningCrawls();
    const ctl = new AbortController();
    const finish = running.add("crawl_1", ctl);
    let wound = false;
    ctl.signal.addEventListener("abort", () => setTimeout(() => ((wound = true), finish()), 20));
    expect(await running.stopAll()).toBe(1);
    expect(wound).toBe(true);
    expect(running.stopping).toBe(true);
    expect(running.get("crawl_1")).toBeUndefined();
  });

  it("the handler refuses to start while shutting down and does nothing for a crawl no longer queued", async () => {
    const { deps, p } = await setup();
    const created = await createCrawl(deps, p, { url: "http://127.0.0.1:9/" });
    const job = { subject: created.id, signal: new AbortController().signal } as RunningJob;
    const stopping = new RunningCrawls();
    await stopping.stopAll();
    await expect(handleCrawlJob(deps, stopping, job)).rejects.toThrow("The service is shutting down");

    await cancelCrawl(deps, new RunningCrawls(), p, created.id);
    await handleCrawlJob(deps, new RunningCrawls(), job);
    expect((await getCrawl(deps, p, created.id)).status).toBe("cancelled");
  });

  it("the tracker notices a crawl cancelled elsewhere, at once when forced, else at most once a second", async () => {
    const { store, deps, p } = await setup();
    const created = await createCrawl(deps, p, { url: "http://127.0.0.1:9/" });
    const row = (await store.crawls.transition(created.id, ["queued"], "running", { started_at: new Date().toISOString() }))!;
    const ctl = new AbortController();
    const tracker = new CrawlJobTracker(deps, row, ctl, 3);
    expect(tracker.pagesCrawled).toBe(3);
    await store.crawls.transition(row.id, ["running"], "cancelled", {});
    await tracker.watchStatus();
    expect(ctl.signal.aborted).toBe(false); // checked less than a second ago (at start)
    await tracker.watchStatus(true);
    expect(ctl.signal.aborted).toBe(true);
  });
});
