// Webhook events of a crawl that ended: crawl.completed (with the counts per outcome) and
// source.synced, or crawl.failed with the error.
import type { CrawlJobRow } from "../../store/crawl-types.js";
import type { CrawlServiceDeps } from "./crawl-types.js";

export async function emitCrawlEnded(deps: Pick<CrawlServiceDeps, "store" | "events">, row: CrawlJobRow, error: string | null): Promise<void> {
  if (!deps.events) return;
  const ended = await deps.store.crawls.byId(row.id);
  const c = await deps.store.freshness.outcomeCounts(row.id);
  const data = {
    crawl_id: row.id,
    data_source_id: row.data_source_id,
    url: row.url,
    status: error ? "failed" : "completed",
    error,
    pages_crawled: ended?.pages_crawled ?? 0,
    pages_failed: ended?.pages_failed ?? 0,
    pages_new: c.new,
    pages_changed: c.changed,
    pages_unchanged: c.unchanged,
    pages_removed: c.removed,
  };
  const scope = { sourceId: row.data_source_id };
  await deps.events.emit(row.tenant_id, error ? "crawl.failed" : "crawl.completed", data, scope);
  if (!error) await deps.events.emit(row.tenant_id, "source.synced", { data_source_id: row.data_source_id, source_type: "website", crawl_id: row.id }, scope);
}
