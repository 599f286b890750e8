// A crawl survives its process: a shutdown in the middle puts the job back in the queue, and a crash
// (job rows left `running`) is recovered at start; either way the crawl resumes where it stopped.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrlOf, jobsInDatabase, startServer, waitIndexed, type TestServer } from "../kit/index.js";
import { openDeploymentSql } from "../helpers/store-sql.js";
import { html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { docPaths, sleep, waitCrawl, waitCrawlUntil } from "./helpers.js";

const PAGES = 10;

describe("crawls across a restart", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-crawl-restart-"));
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-no-models-"));
  // lexical indexing is enough here: an ONNX profile without its files starts degraded at once
  const env = {
    CRAWL_ALLOW_PRIVATE_NETWORKS: "true",
    EMBEDDING_PROFILE: "bge-small-en-v1.5",
    MODELS_DIR: modelsDir,
    ALLOW_MODEL_DOWNLOAD: "false",
  };
  let s: TestServer | undefined;
  let site: FixtureServer;

  beforeAll(async () => {
    site = await serve(async (req, res, { url }) => {
      if (url.pathname === "/") return send(req, res, { body: html("Home", links(...Array.from({ length: PAGES }, (_, i) => `/p${i + 1}`))) });
      const m = /^\/p(\d+)$/.exec(url.pathname);
      if (m) {
        await sleep(400);
        return send(req, res, { body: html(`Page ${m[1]}`, `<p>Page ${m[1]} of the restart fixture.</p>`) });
      }
      send(req, res, { status: 404, body: "not found", type: "text/plain" });
    });
  });
  afterAll(async () => {
    await s?.close();
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("a crawl interrupted by a shutdown, then left running by a crash, resumes after the restart", async () => {
    s = await startServer(env, { dataDir });
    const { adminKey: key } = await s.tenant();
    const r = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/`, max_depth: 1, page_limit: 50 } });
    expect(r.status).toBe(202);
    const id = r.body.id;
    const src = r.body.data_source_id;
    await waitCrawlUntil(s, key, id, (j) => j.pages_crawled >= 3);
    await s.close();
    s = undefined;

    // a clean shutdown put the crawl back in the queue
    const db = await openDeploymentSql(dataDir, databaseUrlOf(dataDir), { write: true });
    try {
      const row = (await db.get<{ status: string; pages_crawled: number }>("SELECT status, pages_crawled FROM crawl_jobs WHERE id = ?", id))!;
      expect(row.status).toBe("queued");
      expect(row.pages_crawled).toBeGreaterThanOrEqual(3);
      // now as a crash would leave them: the crawl running, and its job running with no owner
      // holding a lease (BullMQ's stalled-job check covers the job when the queue is in Redis)
      await db.run("UPDATE crawl_jobs SET status = 'running' WHERE id = ?", id);
      if (jobsInDatabase(dataDir)) {
        const job = (await db.get<{ status: string }>("SELECT status FROM jobs WHERE kind = 'crawl' AND subject = ?", id))!;
        expect(job.status).toBe("queued");
        await db.run("UPDATE jobs SET status = 'running' WHERE kind = 'crawl' AND subject = ?", id);
      }
    } finally {
      await db.close();
    }
    const fetchedBefore = new Set(site.paths());

    s = await startServer(env, { dataDir });
    const done = await waitCrawl(s, key, id);
    expect(done).toMatchObject({ status: "completed", pages_crawled: PAGES + 1, error: null });
    const docs = await waitIndexed(s, key, src);
    expect(docPaths(docs)).toEqual(["/", ...Array.from({ length: PAGES }, (_, i) => `/p${i + 1}`)].sort());
    expect(docs.every((d) => d.status === "indexed")).toBe(true);
    // pages indexed before the shutdown were not fetched again (pages in flight at the shutdown may be)
    const indexedBefore = docs.filter((d) => fetchedBefore.has(new URL(d.source).pathname));
    const refetched = indexedBefore.filter((d) => site.count(new URL(d.source).pathname) > 1);
    expect(refetched.length).toBeLessThanOrEqual(2);
    expect(site.count("/")).toBe(1);
  });
});
