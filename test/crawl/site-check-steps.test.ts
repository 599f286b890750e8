// The site check's steps alone: the pure ones on hand-made inputs, the network ones against the
// fixture docs site on loopback.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetcher, type Fetcher, type FetchResult } from "../../src/crawl/fetcher.js";
import { analyzeHtml } from "../../src/crawl/links.js";
import {
  checkContentType,
  checkJavaScript,
  checkLlmsTxt,
  checkRobots,
  checkSitemaps,
  checkStartPage,
  checkUrlPolicy,
  emptySiteCheck,
  suggestCrawl,
  type SiteCheckRun,
  type StartPage,
} from "../../src/crawl/site-check.js";
import { createUrlPolicy } from "../../src/crawl/url-policy.js";
import { docsSite, fixtureGuard, html, serve, type FixtureServer } from "./fixtures.js";

const noNetwork: Fetcher = {
  fetch: async () => {
    throw new Error("this step must not fetch");
  },
  requestCount: 0,
  close: () => undefined,
};

function runFor(url: string, fetcher: Fetcher = noNetwork): SiteCheckRun {
  return { out: emptySiteCheck(url), fetcher, signal: new AbortController().signal, timeoutMs: 5_000 };
}

function startPage(finalUrl: string, body: string, contentType: string | null, status = 200): StartPage {
  const res = { url: finalUrl, finalUrl, status, statusText: "", contentType, body: Buffer.from(body), etag: null, lastModified: null, redirects: [], headers: {}, truncated: false } satisfies FetchResult;
  return { res, final: new URL(finalUrl), ok: status >= 200 && status < 300 };
}

describe("site check steps without a network", () => {
  it("content type: HTML is analysed, other documents warn, unknown types block", () => {
    const run = runFor("https://example.com/");
    const page = checkContentType(run, startPage("https://example.com/", html("Home", '<a href="/a">a</a>'), "text/html; charset=utf-8"));
    expect(page.format).toBe("html");
    expect(page.html?.links).toEqual(["https://example.com/a"]);
    expect(checkContentType(run, startPage("https://example.com/m.pdf", "%PDF-1.4\n", "application/pdf")).format).toBe("pdf");
    expect(checkContentType(run, startPage("https://example.com/x.png", "\x89PNG", "image/png")).format).toBeNull();
    expect(run.out.checks.map((c) => [c.name, c.status])).toEqual([["content_type", "pass"], ["content_type", "warn"], ["content_type", "fail"]]);
    expect(run.out.blocked_reason).toMatch(/^The URL returns image\/png, not a web page/);
    // a page that did not load has no format and adds no line
    expect(checkContentType(run, startPage("https://example.com/", "", "text/html", 500))).toEqual({ format: null, html: null });
    expect(run.out.checks).toHaveLength(3);
  });

  it("JavaScript: an app shell needs rendering; robots meta is reported", () => {
    const run = runFor("https://example.com/");
    const shell = analyzeHtml('<html><head><meta name="robots" content="noindex"></head><body><div id="root"></div><script src="/app.js"></script></body></html>', "https://example.com/");
    checkJavaScript(run, shell);
    expect(run.out.needs_js).toBe(true);
    expect(run.out.checks.map((c) => [c.name, c.status])).toEqual([["javascript", "warn"], ["robots_meta", "warn"]]);
    expect(run.out.checks[1].detail).toBe("The page's robots meta tag says noindex; the crawler honours it.");
  });

  it("suggestions: from the sitemap or llms.txt count with headroom, else from the start page's links", () => {
    const listed = runFor("https://example.com/docs/intro");
    listed.out.scope = "https://example.com/";
    suggestCrawl(listed, new URL("https://example.com/docs/intro"), { sitemapEstimate: 40, llmsCount: 55, sameSiteLinks: 3, startIsHtml: true });
    expect(listed.out).toMatchObject({ estimated_pages: 55, suggested_page_limit: 61, suggested_depth: 2 });
    expect(listed.out.checks[0].detail).toBe(
      'The crawl covers https://example.com/ (about 55 pages); suggested page_limit 61, max_depth 2. To stay under /docs/, set include_paths to ["/docs/"].',
    );

    const linked = runFor("https://example.com/");
    suggestCrawl(linked, new URL("https://example.com/"), { sitemapEstimate: null, llmsCount: null, sameSiteLinks: 40, startIsHtml: true });
    expect(linked.out).toMatchObject({ estimated_pages: null, suggested_page_limit: 120, suggested_depth: 3 });

    const alone = runFor("https://example.com/");
    suggestCrawl(alone, new URL("https://example.com/"), { sitemapEstimate: null, llmsCount: null, sameSiteLinks: 0, startIsHtml: true });
    expect(alone.out).toMatchObject({ suggested_page_limit: 25, suggested_depth: 0 });
  });

  it("URL policy: a refused URL blocks the check before any request", async () => {
    const run = runFor("http://127.0.0.1/");
    expect(await checkUrlPolicy(run, "http://127.0.0.1/", createUrlPolicy({ allowPrivateNetworks: false }))).toBe(false);
    expect(run.out.checks.map((c) => [c.name, c.status])).toEqual([["url_policy", "fail"]]);
    expect(run.out.blocked_reason).toBeTruthy();
  });
});

describe("site check steps against the docs site", () => {
  let docs: FixtureServer;
  let fetcher: Fetcher;
  beforeAll(async () => {
    docs = await serve(docsSite({ crawlDelay: 2 }));
    fetcher = createFetcher({ guard: fixtureGuard(docs.base) });
  });
  afterAll(async () => {
    fetcher.close();
    await docs.close();
  });

  it("start page, robots.txt, sitemaps and llms.txt each fill their fields", async () => {
    const run = runFor(`${docs.base}/start`, fetcher);
    const start = await checkStartPage(run, `${docs.base}/start`);
    expect(start?.final.href).toBe(`${docs.base}/`);
    expect(run.out).toMatchObject({ reachable: true, final_url: `${docs.base}/`, status_code: 200, scope: `${docs.base}/` });
    expect(run.out.checks[0]).toEqual({ name: "fetch", status: "pass", detail: `The URL answered HTTP 200 after 1 redirect to ${docs.base}/.` });

    const robots = await checkRobots(run, start!);
    expect(run.out).toMatchObject({ robots_found: true, robots_allowed: true, crawl_delay: 2 });
    expect(robots.sitemaps).toEqual([`${docs.base}/sitemap_index.xml`]);

    expect(await checkSitemaps(run, robots, start!.final)).toBe(6);
    expect(run.out).toMatchObject({ sitemap_found: true, sitemap_page_count: 6, sitemap_index_count: 2, sitemap_sampled: false });
    expect(run.out.sitemap_sample).toHaveLength(5);

    expect(await checkLlmsTxt(run, start!.final)).toBe(2);
    expect(run.out).toMatchObject({ llms_txt_found: true, llms_txt_page_count: 2 });
    expect(run.out.checks.map((c) => c.name)).toEqual(["fetch", "robots", "sitemap", "llms_txt"]);
  });

  it("a start page that answers 404 blocks the crawl but the check goes on", async () => {
    const run = runFor(`${docs.base}/missing`, fetcher);
    const start = await checkStartPage(run, `${docs.base}/missing`);
    expect(start?.ok).toBe(false);
    expect(run.out.blocked_reason).toBe("The URL answered HTTP 404 Not Found; a crawl needs a page that loads.");
  });
});
