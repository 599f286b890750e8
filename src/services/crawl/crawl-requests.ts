// The crawl API's operations: site check, create, list, get, pages, cancel, retry. Each takes the
// service's dependencies explicitly; the job itself runs in crawl-runner.ts.

import type { TenantRow } from "../../store/types.js";
import type { Json, SourceView } from "../../store/content-types.js";
import type { CrawlJobRow, CrawlPageStatus } from "../../store/crawl-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { QueueUnavailableError } from "../../jobs/types.js";
import { checkSite, chromiumAvailable, normalizeIncludePaths, FetchError, UrlPolicyError, DEFAULT_MAX_DEPTH, DEFAULT_PAGE_LIMIT, type SiteCheckOut } from "../../crawl/index.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { badRequest, conflict, notFound, unavailable } from "../errors.js";
import { insertSource } from "../collections/sources.js";
import { decodeKeyset, page } from "../paging.js";
import { CRAWL_JOB_KIND, LIST_LIMIT, PAGES_DEFAULT_LIMIT, crawlOut, crawlSettings, queueJob, urlGuard, type CrawlCreateBody, type CrawlOut, type CrawlServiceDeps, type RunningCrawls } from "./crawl-types.js";

type Deps = Pick<CrawlServiceDeps, "store" | "config" | "guard" | "queue">;

/** The tenant's crawl job, or 404. */
export async function crawlRow(deps: Pick<CrawlServiceDeps, "store">, tenantId: string, id: string): Promise<CrawlJobRow> {
  const row = await deps.store.crawls.get(tenantId, id);
  if (!row) throw notFound("Crawl job", id);
  return row;
}

/** The row with its indexing progress, as the API shows it. */
export async function crawlView(deps: Pick<CrawlServiceDeps, "store">, row: CrawlJobRow): Promise<CrawlOut> {
  const { crawls, freshness } = deps.store;
  const [progress, outcomes, stale] = await Promise.all([crawls.indexProgress(row.id), freshness.outcomeCounts(row.id), freshness.staleCount(row.id)]);
  return crawlOut(row, progress, { ...outcomes, stale });
}

/** The URL policy's verdict as a 400; other failures (DNS) are returned for the caller to judge. */
async function checkUrl(deps: Pick<CrawlServiceDeps, "config" | "guard">, url: string): Promise<unknown> {
  try {
    await urlGuard(deps).check(url);
    return null;
  } catch (err) {
    if (err instanceof UrlPolicyError) throw badRequest(err.message);
    return err;
  }
}

function checkRenderJs(deps: Pick<CrawlServiceDeps, "config">, renderJs: boolean): void {
  if (!renderJs) return;
  if (!deps.config.renderJs) {
    throw badRequest("render_js is not allowed on this deployment (CRAWL_RENDER_JS is off); crawl without render_js.");
  }
  if (!chromiumAvailable()) {
    throw badRequest("render_js is not allowed on this deployment: Chromium is not installed; crawl without render_js.");
  }
}

const queueDown = () => unavailable("The crawl queue is not running, so the crawl was not started. Try again in a moment.");

export function checkQueue(deps: Pick<CrawlServiceDeps, "queue">): void {
  if (!deps.queue().available()) throw queueDown();
}

/** Queues the crawl's job; if the queue went away since checkQueue, the crawl fails and the answer is 503. */
export async function enqueueCrawl(deps: Pick<CrawlServiceDeps, "store" | "queue">, row: CrawlJobRow): Promise<void> {
  try {
    await deps.queue().enqueue(queueJob(row));
  } catch (err) {
    if (!(err instanceof QueueUnavailableError)) throw err;
    await deps.store.crawls.transition(row.id, ["queued"], "failed", { error: "The crawl queue was unavailable; the crawl did not start.", finished_at: nowIso() });
    throw queueDown();
  }
}

/** 409 when the source has a queued or running crawl other than `except`. */
async function refuseIfActive(deps: Pick<CrawlServiceDeps, "store">, sourceId: string, except?: string): Promise<void> {
  const active = await deps.store.crawls.activeForSource(sourceId);
  if (active && active.id !== except) {
    throw conflict(
      `Data source '${sourceId}' already has a ${active.status} crawl ('${active.id}'); cancel it or wait until it finishes before starting another.`,
    );
  }
}

/** POST /crawl/check: the URL policy first (400), then a handful of requests; indexes nothing. */
export async function checkCrawlSite(deps: Pick<CrawlServiceDeps, "config" | "guard">, p: Principal, url: string): Promise<SiteCheckOut> {
  tenantOf(p);
  await checkUrl(deps, url);
  return checkSite(url, { guard: urlGuard(deps) });
}

type CrawlSettings = Pick<CrawlJobRow, "url" | "max_depth" | "page_limit" | "render_js" | "include_paths">;

/** POST /crawl: validates, finds or creates the website source, saves the settings, queues the job. */
export async function createCrawl(deps: Deps, p: Principal, body: CrawlCreateBody): Promise<CrawlOut> {
  const tenant = tenantOf(p);
  const renderJs = body.render_js ?? false;
  checkRenderJs(deps, renderJs);
  const dnsProblem = await checkUrl(deps, body.url);
  if (dnsProblem instanceof FetchError) throw badRequest(dnsProblem.message);
  if (dnsProblem) throw dnsProblem;
  checkQueue(deps);

  const settings: CrawlSettings = {
    url: body.url,
    max_depth: body.max_depth ?? DEFAULT_MAX_DEPTH,
    page_limit: body.page_limit ?? DEFAULT_PAGE_LIMIT,
    render_js: renderJs,
    include_paths: normalizeIncludePaths(body.include_paths),
  };
  const collectionId = body.collection_id ?? null;
  if (collectionId && !(await deps.store.content.getCollection(tenant.id, collectionId))) throw notFound("Collection", collectionId);
  const source = body.data_source_id
    ? await reuseWebsiteSource(deps, tenant, body.data_source_id, collectionId, settings)
    : await createWebsiteSource(deps, tenant, body.url, collectionId ? [collectionId] : [], crawlSettings(settings));

  const row: CrawlJobRow = {
    id: newId("crawl"),
    tenant_id: tenant.id,
    data_source_id: source.id,
    ...settings,
    status: "queued",
    pages_crawled: 0,
    pages_failed: 0,
    error: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
  };
  if (!(await deps.store.crawls.create(row))) {
    // another request started a crawl of this source since the check in reuseWebsiteSource
    await refuseIfActive(deps, source.id);
    throw conflict(`Data source '${source.id}' had a crawl in progress; try again.`);
  }
  await enqueueCrawl(deps, row);
  return crawlOut(row);
}

/** An existing website source to crawl into: no crawl active, the new settings saved, attached to the collection. */
async function reuseWebsiteSource(
  deps: Pick<CrawlServiceDeps, "store">,
  tenant: TenantRow,
  sourceId: string,
  collectionId: string | null,
  settings: CrawlSettings,
): Promise<SourceView> {
  const { content } = deps.store;
  const found = await content.getSource(tenant.id, sourceId);
  if (!found) throw notFound("Data source", sourceId);
  if (found.source_type !== "website") {
    throw badRequest(`Data source '${found.id}' is a ${found.source_type} source; crawl into a source of type 'website', or leave data_source_id out to create one.`);
  }
  await refuseIfActive(deps, found.id);
  await content.updateSource(tenant.id, found.id, { configuration: { ...found.configuration, ...crawlSettings(settings) } });
  if (collectionId && !found.collection_ids.includes(collectionId)) await content.attachSource(tenant.id, collectionId, found.id);
  return found;
}

async function createWebsiteSource(deps: Pick<CrawlServiceDeps, "store">, tenant: TenantRow, url: string, collectionIds: string[], configuration: Json): Promise<SourceView> {
  const id = await insertSource(deps.store, tenant, { name: new URL(url).host, source_type: "website", configuration }, collectionIds);
  return (await deps.store.content.getSource(tenant.id, id))!;
}

/** GET /crawl: newest first, `limit` (200) at a time; `next` is the cursor of the following page, if any. */
export async function listCrawlPage(
  deps: Pick<CrawlServiceDeps, "store">,
  p: Principal,
  o: { limit?: number; cursor?: string },
): Promise<{ items: CrawlOut[]; next: string | null }> {
  const limit = o.limit ?? LIST_LIMIT;
  const rows = await deps.store.crawls.list(tenantOf(p).id, limit + 1, o.cursor ? decodeKeyset(o.cursor) : undefined);
  const { items, next } = page(rows, limit);
  return { items: await Promise.all(items.map((row) => crawlView(deps, row))), next };
}

export async function listCrawls(deps: Pick<CrawlServiceDeps, "store">, p: Principal): Promise<CrawlOut[]> {
  return (await listCrawlPage(deps, p, {})).items;
}

export async function getCrawl(deps: Pick<CrawlServiceDeps, "store">, p: Principal, id: string): Promise<CrawlOut> {
  return crawlView(deps, await crawlRow(deps, tenantOf(p).id, id));
}

/** GET /crawl/{id}/pages: failed pages (with the reason) and handed-over pages (with their indexing state). */
export async function crawlPages(
  deps: Pick<CrawlServiceDeps, "store">,
  p: Principal,
  id: string,
  o: { status?: string; limit?: number; cursor?: string },
): Promise<{ items: CrawlPageStatus[]; next: string | null }> {
  const tenant = tenantOf(p);
  await crawlRow(deps, tenant.id, id);
  const limit = o.limit ?? PAGES_DEFAULT_LIMIT;
  const after = o.cursor ? decodeCursor(o.cursor) : null;
  const rows = await deps.store.crawls.pageStatuses(tenant.id, id, { status: o.status ?? null, limit: limit + 1, after });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const next = rows.length > limit && last ? encodeCursor(`${last.status === "failed" && last.document_id === null ? "0" : "1"}${last.url}`) : null;
  return { items, next };
}

/** queued or running -> cancelled; a running crawl stops promptly, its indexed pages stay. */
export async function cancelCrawl(deps: Pick<CrawlServiceDeps, "store" | "queue">, running: RunningCrawls, p: Principal, id: string): Promise<CrawlOut> {
  const tenant = tenantOf(p);
  const before = await crawlRow(deps, tenant.id, id);
  const row = await deps.store.crawls.transition(before.id, ["queued", "running"], "cancelled", { finished_at: nowIso() });
  if (!row) {
    const now = await crawlRow(deps, tenant.id, id);
    throw conflict(`Crawl job '${id}' is ${now.status}; only queued or running crawls can be cancelled.`);
  }
  // reaches the worker that runs it, in this process or another
  running.get(id)?.ctl.abort();
  await deps.queue().cancel(CRAWL_JOB_KIND, id);
  return crawlView(deps, row);
}

/** failed or cancelled -> queued: resumes, skipping the pages it already indexed. */
export async function retryCrawl(deps: Deps, p: Principal, id: string): Promise<CrawlOut> {
  const tenant = tenantOf(p);
  const before = await crawlRow(deps, tenant.id, id);
  if (before.status !== "failed" && before.status !== "cancelled") {
    throw conflict(`Crawl job '${id}' is ${before.status}; only failed or cancelled crawls can be retried.`);
  }
  checkRenderJs(deps, before.render_js);
  checkQueue(deps);
  await refuseIfActive(deps, before.data_source_id, id);
  const row = await deps.store.crawls.requeue(tenant.id, id);
  if (!row) {
    await refuseIfActive(deps, before.data_source_id, id); // another crawl of the source started meanwhile
    const now = await crawlRow(deps, tenant.id, id);
    throw conflict(`Crawl job '${id}' is ${now.status}; only failed or cancelled crawls can be retried.`);
  }
  await enqueueCrawl(deps, row);
  return crawlView(deps, row);
}

/** "syncing" of a data source: a crawl of it is queued or running. */
export async function isSourceSyncing(deps: Pick<CrawlServiceDeps, "store">, sourceId: string): Promise<boolean> {
  return (await deps.store.crawls.activeForSource(sourceId)) !== null;
}

// Opaque page cursors: the position key of the last entry, base64url-encoded.
const encodeCursor = (key: string) => Buffer.from(key, "utf8").toString("base64url");
function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[01]/.test(key)) throw badRequest("cursor is not valid; pass the cursor of the Link header unchanged, or leave it out to start at the first page.");
  return key;
}
