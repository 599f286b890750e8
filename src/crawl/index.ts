// Public surface of the crawler for the service layer.

export { runCrawl, sha256 } from "./crawler.js";
export { checkSite, type SiteCheckOptions } from "./site-check.js";
export { FetchError, UrlPolicyError, describeError, type FetchErrorCode, type UrlPolicyErrorCode } from "./errors.js";
export { createFetcher, fetchUrl, type FetchRequest, type FetchResult, type Fetcher, type FetcherOptions } from "./fetcher.js";
export { chromiumAvailable, chromiumPath, createRenderer, type Renderer, type RendererOptions, type RenderRequest, type RenderResult } from "./render.js";
export { fetchRobots, parseRobotsTxt, type RobotsInfo } from "./robots.js";
export { collectSitemaps, parseSitemap, type SitemapCollection, type ParsedSitemap } from "./sitemap.js";
export { fetchLlmsTxt, parseLlmsTxt, type LlmsTxt, type LlmsTxtLink } from "./llms-txt.js";
export { analyzeHtml, decodeHtml, extractMarkdownLinks, markdownTwinCandidate, type HtmlAnalysis } from "./links.js";
export { detectFormat } from "./formats.js";
export { normalizeIncludePaths, sameSite } from "./scope.js";
export {
  classifyAddress,
  createUrlPolicy,
  isTrackingParam,
  normalizeUrl,
  parseCrawlUrl,
  systemResolver,
  tryNormalizeUrl,
  type CheckedUrl,
  type ResolvedAddress,
  type Resolver,
  type UrlGuard,
  type UrlPolicyOptions,
} from "./url-policy.js";
export * from "./limits.js";
export type * from "./types.js";
export { postGuarded, type PostResult } from "./post.js";
export { GitMirror, gitFileKind, normalizeRepoPaths, parseGitUrl, wantedFile, GIT_MAX_FILE_BYTES, type GitChanges, type GitRemote } from "./git.js";
