import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSite } from "../../src/crawl/site-check.js";
import type { SiteCheckOut } from "../../src/crawl/types.js";
import { docsSite, html, links, send, serve, type FixtureServer } from "./fixtures.js";

const FIELDS = [
  "url", "final_url", "reachable", "status_code", "content_type", "can_crawl", "blocked_reason", "robots_found",
  "robots_allowed", "crawl_delay", "sitemap_found", "sitemap_page_count", "sitemap_index_count", "sitemap_sampled",
  "sitemap_sample", "llms_txt_found", "llms_txt_page_count", "markdown_twin", "needs_js", "scope", "estimated_pages",
  "suggested_page_limit", "suggested_depth", "checks", "elapsed_ms",
].sort();

function expectContractShape(out: SiteCheckOut) {
  expect(Object.keys(out).sort()).toEqual(FIELDS);
  expect(Number.isInteger(out.elapsed_ms)).toBe(true);
  expect(out.suggested_page_limit).toBeGreaterThanOrEqual(1);
  expect(out.suggested_page_limit).toBeLessThanOrEqual(20000);
  expect(out.suggested_depth).toBeGreaterThanOrEqual(0);
  expect(out.suggested_depth).toBeLessThanOrEqual(10);
  for (const c of out.checks) {
    expect(Object.keys(c).sort()).toEqual(["detail", "name", "status"]);
    expect(["pass", "warn", "fail", "info"]).toContain(c.status);
    expect(c.detail.length).toBeGreaterThan(10);
  }
}

const check = (out: SiteCheckOut, name: string) => out.checks.find((c) => c.name === name);

describe("site check of the docs site", () => {
  let docs: FixtureServer;
  beforeAll(async () => {
    docs = await serve(docsSite({ crawlDelay: 0.2 }));
  });
  afterAll(() => docs.close());

  it("fills every field truthfully with a handful of requests", async () => {
    const before = docs.hits.length;
    const out = await checkSite(`${docs.base}/start`, { allowPrivateNetworks: true });
    const hits = docs.hits.slice(before).map((h) => h.path);
    expectContractShape(out);
    const b = docs.base;
    expect(out).toEqual({
      url: `${b}/start`,
      final_url: `${b}/`,
      reachable: true,
      status_code: 200,
      content_type: "text/html; charset=utf-8",
      can_crawl: true,
      blocked_reason: null,
      robots_found: true,
      robots_allowed: true,
      crawl_delay: 0.2,
      sitemap_found: true,
      sitemap_page_count: 6,
      sitemap_index_count: 2,
      sitemap_sampled: false,
      sitemap_sample: [`${b}/docs/`, `${b}/docs/guide/`, `${b}/docs/guide/install`, `${b}/docs/only-in-sitemap`, `${b}/blog/`],
      llms_txt_found: true,
      llms_txt_page_count: 2,
      markdown_twin: false,
      needs_js: false,
      scope: `${b}/`,
      estimated_pages: 6,
      suggested_page_limit: 7,
      suggested_depth: 2,
      checks: out.checks,
      elapsed_ms: out.elapsed_ms,
    });
    expect(out.checks.map((c) => [c.name, c.status])).toEqual([
      ["url_policy", "pass"],
      ["fetch", "pass"],
      ["content_type", "pass"],
      ["robots", "pass"],
      ["sitemap", "pass"],
      ["llms_txt", "pass"],
      ["markdown_twin", "info"],
      ["javascript", "pass"],
      ["scope", "info"],
    ]);
    expect(check(out, "fetch")?.detail).toContain(`after 1 redirect to ${b}/`);
    expect(check(out, "robots")?.detail).toContain("Crawl-delay 0.2 s");
    expect(check(out, "sitemap")?.detail).toContain("an index of 2 sitemaps: 6 page URLs");
    // bounded: start (+1 redirect hop), robots, 3 sitemap files, llms.txt, twin probe
    expect(hits).toEqual(["/start", "/", "/robots.txt", "/sitemap_index.xml", "/sitemap-docs.xml", "/sitemap-blog.xml", "/llms.txt", "/index.html.md"]);
    expect(hits).not.toContain("/private/secret");
  });

  it("detects an advertised Markdown twin and suggests include_paths for a sub-path", async () => {
    const out = await checkSite(`${docs.base}/docs/api/`, { allowPrivateNetworks: true });
    expect(out.markdown_twin).toBe(true);
    expect(check(out, "markdown_twin")).toMatchObject({ status: "pass" });
    expect(check(out, "scope")?.detail).toContain('set include_paths to ["/docs/api/"]');
  });

  it("robots.txt disallow blocks the crawl", async () => {
    const out = await checkSite(`${docs.base}/private/secret`, { allowPrivateNetworks: true });
    expectContractShape(out);
    expect(out).toMatchObject({ reachable: true, status_code: 404, robots_found: true, robots_allowed: false, can_crawl: false });
    // the HTTP status is reported first; robots is a check of its own
    expect(out.blocked_reason).toContain("HTTP 404");
    expect(check(out, "robots")).toMatchObject({ status: "fail" });
  });

  it("a 404 start page blocks the crawl", async () => {
    const out = await checkSite(`${docs.base}/nope`, { allowPrivateNetworks: true });
    expect(out).toMatchObject({ reachable: true, status_code: 404, can_crawl: false });
    expect(out.blocked_reason).toBe("The URL answered HTTP 404 Not Found; a crawl needs a page that loads.");
  });

  it("a non-HTML, unsupported start URL blocks the crawl", async () => {
    const out = await checkSite(`${docs.base}/image.png`, { allowPrivateNetworks: true });
    expect(out).toMatchObject({ reachable: true, status_code: 200, content_type: "image/png", can_crawl: false });
    expect(out.blocked_reason).toContain("returns image/png, not a web page");
  });
});

describe("site check edge cases", () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await serve((req, res, { base, url }) => {
      switch (url.pathname) {
        case "/robots.txt":
          return send(req, res, { type: "text/plain", body: `User-agent: quarrybot\nDisallow: /members/\n\nUser-agent: *\nDisallow:\nSitemap: ${base}/sitemap.xml\n` });
        case "/sitemap.xml":
          return send(req, res, {
            type: "application/xml",
            body: `<sitemapindex>${[1, 2, 3, 4, 5].map((i) => `<sitemap><loc>${base}/s${i}.xml</loc></sitemap>`).join("")}</sitemapindex>`,
          });
        case "/s1.xml":
        case "/s2.xml":
        case "/s3.xml":
        case "/s4.xml":
        case "/s5.xml": {
          const n = url.pathname[2];
          const urls = Array.from({ length: 40 }, (_, i) => `<url><loc>${base}/p/${n}-${i}</loc></url>`).join("");
          return send(req, res, { type: "application/xml", body: `<urlset>${urls}<url><loc>https://elsewhere.example/x</loc></url></urlset>` });
        }
        case "/":
          return send(req, res, { body: html("Home", links("/a", "/b", "/members/x")) });
        case "/index.html.md":
          return send(req, res, { type: "text/markdown", body: "# Home\n\nMarkdown twin.\n" });
        case "/members/area":
          return send(req, res, { body: html("Members", "") });
        case "/app":
          return send(req, res, {
            body: `<!doctype html><html><head><title>App</title><script src="/bundle.js" defer></script></head><body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>`,
          });
        case "/manual.pdf":
          return send(req, res, { type: "application/pdf", body: "%PDF-1.4\n%%EOF\n" });
      }
      send(req, res, { status: 404, body: "not found" });
    });
  });
  afterAll(() => site.close());

  it("samples a large sitemap index and extrapolates the estimate", async () => {
    const out = await checkSite(`${site.base}/`, { allowPrivateNetworks: true });
    expectContractShape(out);
    expect(out).toMatchObject({
      can_crawl: true,
      sitemap_found: true,
      sitemap_index_count: 5,
      sitemap_sampled: true,
      sitemap_page_count: 81, // 2 of 5 child sitemaps read, 40 URLs each + the same off-site URL
      estimated_pages: 200, // 40 same-site pages per sitemap x 5
      suggested_page_limit: 220,
      suggested_depth: 2,
      markdown_twin: true,
      llms_txt_found: false,
      llms_txt_page_count: 0,
      robots_found: true,
      robots_allowed: true,
      crawl_delay: null,
    });
    expect(out.sitemap_sample).toHaveLength(5);
    expect(out.sitemap_sample.every((u) => u.startsWith(site.base))).toBe(true);
  });

  it("applies the group for our user agent", async () => {
    const out = await checkSite(`${site.base}/members/area`, { allowPrivateNetworks: true });
    expect(out).toMatchObject({ robots_allowed: false, can_crawl: false });
    expect(out.blocked_reason).toContain("robots.txt disallows");
  });

  it("flags an app shell as needing JavaScript", async () => {
    const out = await checkSite(`${site.base}/app`, { allowPrivateNetworks: true });
    expect(out).toMatchObject({ needs_js: true, can_crawl: true });
    expect(check(out, "javascript")).toMatchObject({ status: "warn" });
    expect(check(out, "javascript")?.detail).toContain("set render_js to true");
  });

  it("a PDF start URL can be crawled as one document", async () => {
    const out = await checkSite(`${site.base}/manual.pdf`, { allowPrivateNetworks: true });
    expect(out).toMatchObject({ can_crawl: true, content_type: "application/pdf", needs_js: false, markdown_twin: false });
    expect(check(out, "content_type")).toMatchObject({ status: "warn" });
  });

  it("an unreachable host", async () => {
    const gone = await serve(() => undefined);
    const url = `${gone.base}/`;
    await gone.close();
    const out = await checkSite(url, { allowPrivateNetworks: true });
    expectContractShape(out);
    expect(out).toMatchObject({ reachable: false, final_url: null, status_code: null, content_type: null, can_crawl: false, scope: null, estimated_pages: null });
    expect(out.blocked_reason).toContain("ECONNREFUSED");
  });
});
