// A crawled page becomes a document of the website source: its file stored, its indexing
// queued, and the page remembered (validators, links) for the next crawl of the source.

import fsp from "node:fs/promises";
import type { TenantRow } from "../../store/types.js";
import { LimitReached } from "../../store/content-types.js";
import type { CrawlJobRow, CrawlPageRow } from "../../store/crawl-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { decodeHtml, type CrawledPage } from "../../crawl/index.js";
import { limitsOf } from "../tenants/plans.js";
import { acceptDocuments } from "../documents/acceptance.js";
import { quotaExceededError } from "../tenants/quotas.js";
import type { CrawlServiceDeps } from "./crawl-types.js";

type Deps = Pick<CrawlServiceDeps, "store" | "files" | "log" | "ingestQueue">;

/** Payload of the ingest jobs of crawled pages: a page whose extracted text did not change keeps its index. */
export const REUSE_UNCHANGED_TEXT = { reuse_unchanged_text: true };

/** What a stored document says about where it came from: a crawled page unless said otherwise. */
export interface PageOrigin {
  source_type: string;
  metadata: Record<string, unknown>;
}

const pageOrigin = (row: CrawlJobRow, page: CrawledPage): PageOrigin => ({
  source_type: "website",
  metadata: { url: page.url, final_url: page.finalUrl, depth: page.depth, crawl_id: row.id },
});

/**
 * Stores one crawled page (or a file of a git source) as a document of the source and queues its
 * indexing. Says whether the page was new to the source, changed, or unchanged (then nothing is
 * stored nor indexed).
 */
export async function storePage(deps: Deps, row: CrawlJobRow, tenant: TenantRow, page: CrawledPage, origin = pageOrigin(row, page)): Promise<"new" | "changed" | "unchanged"> {
  if (page.unchanged && (await keepUnchanged(deps, row, page))) return "unchanged";
  const known = await deps.store.content.findDocumentBySource(row.tenant_id, row.data_source_id, page.url);
  // HTML is stored as UTF-8 (the parser reads UTF-8); the hash stays the one of the served bytes
  const body = page.format === "html" ? Buffer.from(decodeHtml(page.body, page.contentType), "utf8") : page.body;
  const temp = deps.files.tempPath();
  await fsp.writeFile(temp, body);
  try {
    const docId = await acceptPage(deps, row, tenant, page, temp, origin);
    await deps.ingestQueue().enqueue({ tenant_id: row.tenant_id, kind: "ingest", subject: docId, payload: REUSE_UNCHANGED_TEXT });
    await recordPage(deps, row, page, docId);
  } finally {
    await fsp.rm(temp, { force: true });
  }
  return known ? "changed" : "new";
}

/**
 * An unchanged page: the document is as the page is, so nothing is re-indexed and only the
 * validators move on. False when there is no document to keep and the page has a body to store.
 */
async function keepUnchanged(deps: Deps, row: CrawlJobRow, page: CrawledPage): Promise<boolean> {
  const { content } = deps.store;
  const doc = await content.findDocumentBySource(row.tenant_id, row.data_source_id, page.url);
  if (doc) {
    // A page whose indexing failed last time (a parse cut off on a busy machine, a model
    // outage) is indexed again from its stored file: otherwise only a change to the page
    // could ever repair it.
    if (doc.status === "failed") {
      await content.setDocumentStatus(row.tenant_id, doc.id, "queued", null);
      await deps.ingestQueue().enqueue({ tenant_id: row.tenant_id, kind: "ingest", subject: doc.id });
    }
    await recordPage(deps, row, page, doc.id);
    return true;
  }
  if (page.body.length === 0) {
    deps.log.warn({ crawl: row.id, url: page.url }, "unchanged page without a stored document; it will be fetched in full next time");
    return true;
  }
  return false;
}

/** The page's document, accepted within the plan's document limit (429 beyond it); its id. */
async function acceptPage(deps: Deps, row: CrawlJobRow, tenant: TenantRow, page: CrawledPage, tempPath: string, origin: PageOrigin): Promise<string> {
  const doc = {
    id: newId("doc"),
    source: page.url,
    title: page.title?.trim() || page.url,
    source_type: origin.source_type,
    kind: page.format,
    content_type: page.contentType,
    size_bytes: page.body.length,
    content_hash: page.contentHash,
    metadata: origin.metadata,
  };
  try {
    const limit = limitsOf(tenant.plan).documents;
    const docs = await acceptDocuments({ content: deps.store.content, files: deps.files }, row.tenant_id, row.data_source_id, [{ doc, tempPath }], limit);
    return docs[0].id;
  } catch (err) {
    if (err instanceof LimitReached) throw quotaExceededError("documents", tenant.plan, err.used, err.limit, err.adding);
    throw err;
  }
}

/** Remembers the page for resume (this job) and re-crawl (the source): validators, links, document. */
async function recordPage(deps: Pick<CrawlServiceDeps, "store">, row: CrawlJobRow, page: CrawledPage, documentId: string): Promise<void> {
  await deps.store.crawls.recordPage({
    tenant_id: row.tenant_id,
    data_source_id: row.data_source_id,
    url: page.url,
    job_id: row.id,
    format: page.format,
    links: page.links,
    etag: page.etag,
    last_modified: page.lastModified,
    content_hash: page.contentHash,
    document_id: documentId,
    crawled_at: nowIso(),
  } satisfies CrawlPageRow);
}
