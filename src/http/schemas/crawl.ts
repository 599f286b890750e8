import { Type } from "@sinclair/typebox";
import { DateTime, Nullable, strictObject } from "./common.js";

export const CrawlOut = Type.Object(
  {
    id: Type.String(),
    data_source_id: Type.String(),
    url: Type.String(),
    status: Type.String({ description: "queued, running, completed, failed or cancelled" }),
    pages_crawled: Type.Integer(),
    page_limit: Type.Integer(),
    max_depth: Type.Integer(),
    error: Nullable(Type.String()),
    created_at: DateTime,
    started_at: Type.Optional(Nullable(DateTime)),
    finished_at: Type.Optional(Nullable(DateTime)),
    pages_failed: Type.Optional(Type.Integer()),
    render_js: Type.Optional(Type.Boolean()),
    include_paths: Type.Optional(Type.Array(Type.String())),
    pages_indexed: Type.Optional(Type.Integer({ description: "pages handed over and indexed (searchable)" })),
    pages_pending: Type.Optional(Type.Integer({ description: "pages handed over and still waiting to be indexed; the crawl stays running until this is 0" })),
    pages_new: Type.Optional(Type.Integer({ description: "pages handed over that the source did not have before" })),
    pages_changed: Type.Optional(Type.Integer({ description: "pages the source had, with new content: stored and indexed again (chunks and vectors kept when the extracted text is the same)" })),
    pages_unchanged: Type.Optional(Type.Integer({ description: "pages the source had, unchanged (304, sitemap lastmod, or the same content): neither parsed nor indexed again" })),
    pages_stale: Type.Optional(Type.Integer({ description: "of pages_failed, pages that keep their last good version (5xx, timeout): still searchable" })),
    pages_removed: Type.Optional(Type.Integer({ description: "pages removed from the index by this crawl: gone (404/410) or not found, in CRAWL_REMOVE_AFTER_MISSES consecutive crawls; for a git source, files the new commits deleted" })),
    git_commit: Type.Optional(Nullable(Type.String({ description: "Extension: a git source's sync (a crawl job of the source) — the commit it reached; null for website crawls and until the sync ends" }))),
  },
  { $id: "CrawlOut" },
);

export const CrawlPageOut = Type.Object(
  {
    url: Type.String(),
    status: Type.String({ description: "failed (not fetched or not indexable, see reason), pending (waiting to be indexed) or indexed" }),
    document_id: Nullable(Type.String()),
    reason: Nullable(Type.String()),
    at: DateTime,
  },
  { $id: "CrawlPageOut" },
);

export const CrawlCreate = strictObject(
  {
    url: Type.String({ format: "uri", minLength: 1, maxLength: 2083 }),
    collection_id: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    data_source_id: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    max_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 2 })),
    page_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20000, default: 25 })),
    render_js: Type.Optional(Type.Boolean({ default: false })),
    include_paths: Type.Optional(Type.Array(Type.String({ maxLength: 2083 }), { maxItems: 50 })),
  },
  { $id: "CrawlCreate" },
);

export const SiteCheckRequest = strictObject(
  { url: Type.String({ format: "uri", minLength: 1, maxLength: 2083 }) },
  { $id: "SiteCheckRequest" },
);

export const SiteCheckItem = Type.Object(
  { name: Type.String(), status: Type.String(), detail: Type.String() },
  { $id: "SiteCheckItem" },
);

export const SiteCheckOut = Type.Object(
  {
    url: Type.String(),
    final_url: Nullable(Type.String()),
    reachable: Type.Boolean(),
    status_code: Nullable(Type.Integer()),
    content_type: Nullable(Type.String()),
    can_crawl: Type.Boolean(),
    blocked_reason: Nullable(Type.String()),
    robots_found: Type.Boolean(),
    robots_allowed: Type.Boolean(),
    crawl_delay: Nullable(Type.Number()),
    sitemap_found: Type.Boolean(),
    sitemap_page_count: Type.Integer(),
    sitemap_index_count: Type.Integer(),
    sitemap_sampled: Type.Boolean(),
    sitemap_sample: Type.Array(Type.String()),
    llms_txt_found: Type.Boolean(),
    llms_txt_page_count: Type.Integer(),
    markdown_twin: Type.Boolean(),
    needs_js: Type.Boolean(),
    scope: Nullable(Type.String()),
    estimated_pages: Nullable(Type.Integer()),
    suggested_page_limit: Type.Integer(),
    suggested_depth: Type.Integer(),
    checks: Type.Array(Type.Ref("SiteCheckItem")),
    elapsed_ms: Type.Integer(),
  },
  { $id: "SiteCheckOut" },
);
