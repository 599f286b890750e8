// One queued URL through the steps: fetch, extract, enqueue its links, hand it over.

import { enqueueLinks, expandStored } from "./enqueue.js";
import { extractPage } from "./extract.js";
import { DUPLICATE_PAGE, fetchPage } from "./fetch.js";
import { handNotModified, handPage } from "./hand.js";
import type { CrawlNetwork } from "./network.js";
import type { CrawlReport, CrawlState, QueueItem } from "./state.js";

export async function processItem(state: CrawlState, net: CrawlNetwork, report: CrawlReport, item: QueueItem): Promise<void> {
  try {
    await processSteps(state, net, report, item);
  } finally {
    state.pending.delete(item.url);
  }
}

async function processSteps(state: CrawlState, net: CrawlNetwork, report: CrawlReport, item: QueueItem): Promise<void> {
  if (expandStored(state, report, item)) return;
  if (state.claimed.has(item.url)) {
    report.skip(item.url, DUPLICATE_PAGE);
    return;
  }
  const fetched = await fetchPage(state, net, report, item);
  if (!fetched) return;
  if (fetched.kind === "not-modified") return handNotModified(state, report, item, fetched.res, fetched.prev);
  const draft = await extractPage(state, net, report, item, fetched);
  if (!draft) return;
  if (item.depth < state.plan.maxDepth) enqueueLinks(state, report, draft.links, item.depth + 1);
  await handPage(state, report, item, draft, fetched.prev);
}
