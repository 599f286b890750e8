// A git repository as a data source (`source_type: "git"`, configuration `url`, `branch`, `paths`).
// A sync is a crawl job of the source (GET /crawl/{id} shows it, with the same counts, cancel,
// retry, recovery, schedules and webhooks); its runner reads the repository instead of a site.
// The first sync indexes every wanted file; each later one only the files `git diff` says changed
// between the commit of the last completed sync and the branch's new commit, and deletes the
// documents of files the commits removed.

import fsp from "node:fs/promises";
import path from "node:path";
import type { TenantRow } from "../../store/types.js";
import type { SourceView } from "../../store/content-types.js";
import type { CrawlJobRow } from "../../store/crawl-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { GitMirror, gitFileKind, parseGitUrl, wantedFile, sha256, type CrawledPage, type CrawlResult } from "../../crawl/index.js";
import { gitSettings, type GitSettings } from "./git-settings.js";
import { asciidocToMarkdown, rstToMarkdown } from "../../ingest/parse/markup-headings.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { badRequest, conflict, notFound } from "../errors.js";
import { crawlOut, urlGuard, type CrawlOut, type CrawlServiceDeps } from "./crawl-types.js";
import { storePage } from "./crawl-pages.js";
import { checkQueue, enqueueCrawl } from "./crawl-requests.js";
import { recordOutcome } from "./crawl-freshness.js";

/** A git sync reads at most this many files; the rest wait for a sync after the plan allows more. */
const GIT_FILE_LIMIT = 100_000;

type RequestDeps = Pick<CrawlServiceDeps, "store" | "config" | "queue">;

/** POST /data-sources/{id}/sync of a git source: a sync job with the source's saved settings. */
export async function startGitSync(deps: RequestDeps, p: Principal, sourceId: string): Promise<CrawlOut> {
  const tenant = tenantOf(p);
  const source = await gitSource(deps, tenant.id, sourceId);
  const settings = gitSettings(source.configuration, deps.config.allowPrivateNetworks);
  checkQueue(deps);
  const row: CrawlJobRow = {
    id: newId("crawl"),
    tenant_id: tenant.id,
    data_source_id: source.id,
    url: settings.url,
    status: "queued",
    pages_crawled: 0,
    pages_failed: 0,
    page_limit: GIT_FILE_LIMIT,
    max_depth: 0,
    render_js: false,
    include_paths: settings.paths,
    error: null,
    created_at: nowIso(),
    started_at: null,
    finished_at: null,
  };
  if (!(await deps.store.crawls.create(row))) {
    const active = await deps.store.crawls.activeForSource(source.id);
    throw conflict(`Data source '${source.id}' already has a ${active?.status ?? "running"} sync ('${active?.id ?? "?"}'); cancel it or wait until it finishes before starting another.`);
  }
  await enqueueCrawl(deps, row);
  return crawlOut(row);
}

/** The tenant's git source, or 404/400. */
export async function gitSource(deps: Pick<CrawlServiceDeps, "store">, tenantId: string, sourceId: string): Promise<SourceView> {
  const source = await deps.store.content.getSource(tenantId, sourceId);
  if (!source) throw notFound("Data source", sourceId);
  if (source.source_type !== "git") throw badRequest(`Data source '${sourceId}' is a ${source.source_type} source, not a git source.`);
  return source;
}

type JobDeps = Pick<CrawlServiceDeps, "store" | "files" | "log" | "config" | "guard" | "ingestQueue" | "gitCacheDir">;

/** What a git sync did, as the crawl runner reads a crawl's result; `commit` once it fetched. */
export interface GitSyncOutcome {
  result: CrawlResult;
  commit: string | null;
}

/** One attempt of a git sync job: fetch, then store changed files and delete removed ones. */
export async function runGitSync(deps: JobDeps, row: CrawlJobRow, tenant: TenantRow, source: SourceView, signal: AbortSignal): Promise<GitSyncOutcome> {
  const result: CrawlResult = { pagesCrawled: 0, pagesThisRun: 0, unchangedPages: 0, errors: 0, skipped: 0, requests: 1, stopReason: "completed", error: null, crawlDelay: null };
  let settings: GitSettings;
  let mirror: GitMirror;
  let commit: string;
  try {
    settings = gitSettings(source.configuration, deps.config.allowPrivateNetworks);
    mirror = new GitMirror(mirrorDir(deps, row));
    commit = await mirror.fetch(parseGitUrl(settings.url, deps.config.allowPrivateNetworks), settings.branch ?? "HEAD", urlGuard(deps));
  } catch (err) {
    return { result: { ...result, stopReason: "completed", error: `The repository could not be read: ${err instanceof Error ? err.message : String(err)}` }, commit: null };
  }
  const plan = await changePlan(deps, row, mirror, commit, settings.paths);
  for (const file of plan.changed) {
    if (signal.aborted) return { result: { ...result, stopReason: "cancelled" }, commit };
    const outcome = await storeFile(deps, row, tenant, { mirror, commit, file, repository: settings.url });
    result.pagesThisRun++;
    if (outcome === "unchanged") result.unchangedPages++;
  }
  const deleted = plan.deleted ?? (await deps.store.freshness.missedPages(row.data_source_id, row.id)).map((p) => p.url);
  for (const file of deleted) await deleteFile(deps, row, file);
  result.pagesCrawled = result.pagesThisRun;
  deps.log.info({ crawl: row.id, commit, from: plan.from, files: plan.changed.length, deleted: deleted.length }, "git source synced");
  return { result, commit };
}

/** Where a source's mirror lives: one bare repository per source, a cache any worker can rebuild. */
function mirrorDir(deps: Pick<CrawlServiceDeps, "gitCacheDir">, row: Pick<CrawlJobRow, "tenant_id" | "data_source_id">): string {
  return path.join(deps.gitCacheDir ?? path.resolve("data", "git"), row.tenant_id, row.data_source_id);
}

/** A deleted source's mirror goes with it (in this process; another worker's copy goes with its disk). */
export async function forgetGitMirror(deps: Pick<CrawlServiceDeps, "gitCacheDir">, tenantId: string, sourceId: string): Promise<void> {
  await fsp.rm(mirrorDir(deps, { tenant_id: tenantId, data_source_id: sourceId }), { recursive: true, force: true });
}

/**
 * The files to store and to delete: `git diff` from the last completed sync's commit when the
 * mirror still holds it and the include paths are the same; otherwise every wanted file, and the
 * documents of files no longer there (deleted: null) are found after storing.
 */
async function changePlan(deps: Pick<CrawlServiceDeps, "store">, row: CrawlJobRow, mirror: GitMirror, commit: string, paths: string[]) {
  const last = await deps.store.crawls.lastGitSync(row.data_source_id);
  const samePaths = last !== null && JSON.stringify(last.include_paths) === JSON.stringify(paths);
  if (last?.git_commit && samePaths && (await mirror.has(last.git_commit))) {
    const d = await mirror.diff(last.git_commit, commit);
    return { from: last.git_commit, changed: d.changed.filter((f) => wantedFile(f, paths)), deleted: d.deleted.filter((f) => wantedFile(f, paths)) };
  }
  return { from: null, changed: (await mirror.files(commit)).filter((f) => wantedFile(f, paths)), deleted: null };
}

interface RepoFile {
  mirror: GitMirror;
  commit: string;
  file: string;
  repository: string;
}

/** A file at the commit becomes a document of the source titled and headed by its path. */
async function storeFile(deps: JobDeps, row: CrawlJobRow, tenant: TenantRow, f: RepoFile): Promise<"new" | "changed" | "unchanged" | "failed"> {
  const body = await f.mirror.read(f.commit, f.file);
  if (!body) {
    await recordOutcome(deps, row, f.file, "failed");
    return "failed";
  }
  // the hash is the file's, so an unchanged file is recognised whatever it is stored as
  const hash = sha256(body);
  const before = await deps.store.crawls.page(row.data_source_id, f.file);
  const kind = gitFileKind(f.file)!;
  const page: CrawledPage = {
    url: f.file,
    finalUrl: f.file,
    depth: 0,
    contentType: kind === "html" ? "text/html; charset=utf-8" : kind === "markdown" ? "text/markdown; charset=utf-8" : "text/plain; charset=utf-8",
    body: asStored(f.file, body),
    format: kind,
    title: f.file,
    etag: null,
    lastModified: null,
    contentHash: hash,
    links: [],
    unchanged: before?.content_hash === hash,
  };
  const origin = { source_type: "git", metadata: { path: f.file, repository: f.repository, commit: f.commit, heading_context: f.file, crawl_id: row.id } };
  const outcome = await storePage(deps, row, tenant, page, origin);
  await recordOutcome(deps, row, f.file, outcome);
  return outcome;
}

/** reStructuredText and AsciiDoc as Markdown (sections as headings); other files as they are. */
function asStored(file: string, body: Buffer): Buffer {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".rst") return Buffer.from(rstToMarkdown(body.toString("utf8")), "utf8");
  if (ext === ".adoc" || ext === ".asciidoc") return Buffer.from(asciidocToMarkdown(body.toString("utf8")), "utf8");
  return body;
}

/** A file the commits removed: its document, stored bytes and page go. */
async function deleteFile(deps: JobDeps, row: CrawlJobRow, file: string): Promise<void> {
  const page = await deps.store.crawls.page(row.data_source_id, file);
  if (page?.document_id && (await deps.store.content.deleteDocument(row.tenant_id, page.document_id))) await deps.files.remove(row.tenant_id, page.document_id);
  await deps.store.freshness.forgetPage(row.data_source_id, file);
  if (page) await recordOutcome(deps, row, file, "removed");
}
