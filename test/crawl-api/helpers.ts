// Helpers of the crawl API suites: polling crawl jobs and listing a source's documents.
import type { TestServer } from "../kit/index.js";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls GET /crawl/{id} until the job is in one of `statuses` (default: a final state). */
export async function waitCrawl(
  s: TestServer,
  key: string,
  id: string,
  statuses: string[] = ["completed", "failed", "cancelled"],
  timeoutMs = 45_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await s.call("GET", `/crawl/${id}`, { key });
    if (r.status !== 200) throw new Error(`GET /crawl/${id}: ${r.status} ${JSON.stringify(r.body)}`);
    if (statuses.includes(r.body.status)) return r.body;
    if (Date.now() > deadline) throw new Error(`crawl ${id} still ${r.body.status}: ${JSON.stringify(r.body)}`);
    await sleep(50);
  }
}

/** Polls until `cond` holds for the crawl job. */
export async function waitCrawlUntil(s: TestServer, key: string, id: string, cond: (job: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await s.call("GET", `/crawl/${id}`, { key });
    if (cond(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`crawl ${id} never matched: ${JSON.stringify(r.body)}`);
    await sleep(25);
  }
}

export async function documentsOf(s: TestServer, key: string, sourceId: string): Promise<any[]> {
  const r = await s.call("GET", `/documents?data_source_id=${sourceId}`, { key });
  if (r.status !== 200) throw new Error(`documents: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Paths (with query) of documents' sources, sorted. */
export const docPaths = (docs: any[]) =>
  docs.map((d) => {
    const u = new URL(d.source);
    return u.pathname + u.search;
  }).sort();
