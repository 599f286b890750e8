// Hand-over: the last step of one page. A withheld page is reported as skipped; a body already
// handed under another identity is a duplicate; everything else goes to the sink.

import { createHash } from "node:crypto";
import type { FetchResult } from "../fetcher.js";
import { inIncludePaths } from "../scope.js";
import type { PreviousPage } from "../types.js";
import { normalizeUrl } from "../url-policy.js";
import { enqueueLinks, sameSiteLinks } from "./enqueue.js";
import type { PageDraft } from "./extract.js";
import type { CrawlReport, CrawlState, QueueItem } from "./state.js";

export function sha256(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/** Hands a page over unless it is withheld or its body was already handed under another identity. */
export async function handPage(state: CrawlState, report: CrawlReport, item: QueueItem, draft: PageDraft, prev: PreviousPage | null): Promise<void> {
  if (draft.withheld !== null) {
    report.skip(item.url, draft.withheld);
    return;
  }
  let unchanged = draft.unchanged;
  const contentHash = unchanged && prev ? prev.contentHash : sha256(draft.body);
  if (!unchanged) {
    const dup = state.handedHashes.get(contentHash);
    if (dup && dup !== draft.identity) {
      report.skip(item.url, `Same content as ${dup}.`);
      return;
    }
    state.handedHashes.set(contentHash, draft.identity);
    if (prev && prev.contentHash === contentHash) unchanged = true;
  }
  await report.page({
    url: draft.identity,
    finalUrl: draft.fetchedUrl,
    depth: item.depth,
    contentType: draft.contentType,
    body: draft.body,
    format: draft.format,
    title: draft.title,
    etag: draft.etag,
    lastModified: draft.lastModified,
    contentHash,
    links: draft.links,
    unchanged,
  });
}

/**
 * A 304: the page is handed as unchanged with the previous hash and links (whose presence made
 * the request conditional), and those links are followed.
 */
export async function handNotModified(state: CrawlState, report: CrawlReport, item: QueueItem, res: FetchResult, prev: PreviousPage): Promise<void> {
  state.claimed.add(item.url);
  state.claimed.add(normalizeUrl(res.finalUrl));
  const links = sameSiteLinks(prev.links ?? [], state.site);
  if (item.source !== "start" || inIncludePaths(new URL(item.url), state.plan.includePaths)) {
    await report.page({
      url: item.url,
      finalUrl: res.finalUrl,
      depth: item.depth,
      contentType: null,
      body: Buffer.alloc(0),
      format: prev.format ?? "html",
      etag: res.etag ?? prev.etag,
      lastModified: res.lastModified ?? prev.lastModified,
      contentHash: prev.contentHash,
      links,
      unchanged: true,
    });
  }
  enqueueLinks(state, report, links, item.depth + 1);
}
