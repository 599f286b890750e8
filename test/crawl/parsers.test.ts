import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { detectFormat } from "../../src/crawl/formats.js";
import { analyzeHtml, decodeHtml, extractMarkdownLinks, looksLikeMarkdown, markdownTwinCandidate } from "../../src/crawl/links.js";
import { parseLlmsTxt } from "../../src/crawl/llms-txt.js";
import { parseRobotsTxt } from "../../src/crawl/robots.js";
import { TrapGuard, inIncludePaths, normalizeIncludePaths, sameSite, structuralTrap, urlPattern } from "../../src/crawl/scope.js";
import { parseSitemap } from "../../src/crawl/sitemap.js";

describe("robots.txt", () => {
  const txt = `# comment
User-agent: QuarryBot
Disallow: /drafts/
Allow: /drafts/public
Crawl-delay: 1.5

User-agent: *
Disallow: /
Crawl-delay: 10

Sitemap: https://docs.example.com/sitemap.xml
Sitemap: /relative-sitemap.xml
`;
  const r = parseRobotsTxt("https://docs.example.com/robots.txt", txt);

  it("applies our group, not *", () => {
    expect(r.allowed("https://docs.example.com/guide")).toBe(true);
    expect(r.allowed("https://docs.example.com/drafts/x")).toBe(false);
    expect(r.allowed("https://docs.example.com/drafts/public")).toBe(true);
    expect(r.crawlDelay).toBe(1.5);
  });

  it("lists sitemaps as absolute URLs", () => {
    expect(r.sitemaps).toEqual(["https://docs.example.com/sitemap.xml", "https://docs.example.com/relative-sitemap.xml"]);
  });

  it("falls back to * with its crawl delay", () => {
    const star = parseRobotsTxt("https://x.example/robots.txt", "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n");
    expect(star.allowed("https://x.example/private/a")).toBe(false);
    expect(star.allowed("https://x.example/public")).toBe(true);
    expect(star.crawlDelay).toBe(2);
    expect(parseRobotsTxt("https://x.example/robots.txt", "").crawlDelay).toBeNull();
  });
});

describe("sitemaps", () => {
  const base = "https://docs.example.com/sitemap.xml";
  it("parses a urlset with namespaces and entities", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc> https://docs.example.com/a?x=1&amp;y=2 </loc><lastmod>2024-01-01</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="https://docs.example.com/de/a"/></url>
  <url><loc>https://docs.example.com/b</loc></url>
  <url><loc>ftp://docs.example.com/c</loc></url>
</urlset>`;
    expect(parseSitemap(xml, base)).toEqual({
      kind: "urlset",
      urls: ["https://docs.example.com/a?x=1&y=2", "https://docs.example.com/b"],
      // <lastmod> kept by URL, for re-crawls that skip unchanged pages
      lastmod: new Map([["https://docs.example.com/a?x=1&y=2", "2024-01-01"]]),
    });
  });

  it("parses a single-entry urlset and an index", () => {
    expect(parseSitemap(`<urlset><url><loc>https://d.example/only</loc></url></urlset>`, base).urls).toEqual(["https://d.example/only"]);
    const index = `<sitemapindex><sitemap><loc>https://d.example/s1.xml</loc></sitemap><sitemap><loc>https://d.example/s2.xml</loc></sitemap></sitemapindex>`;
    expect(parseSitemap(index, base)).toEqual({ kind: "index", urls: ["https://d.example/s1.xml", "https://d.example/s2.xml"] });
  });

  it("parses gzip bytes and plain-text sitemaps; rejects HTML", () => {
    expect(parseSitemap(gzipSync(`<urlset><url><loc>https://d.example/z</loc></url></urlset>`), base).urls).toEqual(["https://d.example/z"]);
    expect(parseSitemap("https://d.example/1\nhttps://d.example/2\n\nnot a url\n", base)).toEqual({ kind: "text", urls: ["https://d.example/1", "https://d.example/2"] });
    expect(parseSitemap("<!doctype html><html><body>Not found</body></html>", base).kind).toBe("invalid");
    expect(parseSitemap("<urlset><url><loc>https://d.example/a", base).kind).not.toBe("index");
  });
});

describe("llms.txt", () => {
  it("collects Markdown links with their sections", () => {
    const text = `# Project

> Summary with a [link in the summary](/intro).

Some text.

## Docs

- [Quick start](https://docs.example.com/start.md): how to begin
- [API](api/reference.md "API title")
- ![logo](/logo.png)

\`\`\`
[not a link](/in-code)
\`\`\`

## Optional

- [Changelog](/changelog)
- [Quick start again](https://docs.example.com/start.md#top)
`;
    const parsed = parseLlmsTxt(text, "https://docs.example.com/llms.txt");
    expect(parsed.title).toBe("Project");
    expect(parsed.links).toEqual([
      { url: "https://docs.example.com/intro", title: "link in the summary", section: "", optional: false },
      { url: "https://docs.example.com/start.md", title: "Quick start", section: "Docs", optional: false },
      { url: "https://docs.example.com/api/reference.md", title: "API", section: "Docs", optional: false },
      { url: "https://docs.example.com/changelog", title: "Changelog", section: "Optional", optional: true },
    ]);
  });
});

describe("HTML links", () => {
  const page = "https://docs.example.com/guide/intro";
  const doc = `<!doctype html><html><head><title> Intro
    Guide </title>
    <base href="/guide/v2/">
    <link rel="canonical" href="https://docs.example.com/guide/intro">
    <link rel="alternate" type="text/markdown" href="intro.md">
    <link rel="stylesheet" href="/s.css">
  </head><body>
    <a href="next">Next</a>
    <a href="/abs#frag">Abs</a>
    <a href="/abs">Abs again</a>
    <a href="https://other.example/x">Other</a>
    <a href="mailto:a@b.c">Mail</a><a href="javascript:void(0)">JS</a><a href="tel:+1">Tel</a><a href="#top">Top</a>
    <a rel="nofollow noopener" href="/login">Login</a>
    <map><area href="/area-link"></map>
    <p>${"Words of documentation. ".repeat(20)}</p>
  </body></html>`;

  it("resolves against <base>, keeps canonical and twin, drops nofollow and non-http", () => {
    const a = analyzeHtml(doc, page);
    expect(a.title).toBe("Intro Guide");
    expect(a.baseUrl).toBe("https://docs.example.com/guide/v2/");
    expect(a.canonical).toBe("https://docs.example.com/guide/intro");
    expect(a.markdownTwin).toBe("https://docs.example.com/guide/v2/intro.md");
    expect(a.links).toEqual([
      "https://docs.example.com/guide/v2/next",
      "https://docs.example.com/abs",
      "https://other.example/x",
      "https://docs.example.com/guide/v2/",
      "https://docs.example.com/area-link",
    ]);
    expect(a.nofollowLinks).toBe(1);
    expect(a.needsJs).toBe(false);
  });

  it("honours robots meta", () => {
    const a = analyzeHtml(`<html><head><meta name="robots" content="noindex, nofollow"></head><body><a href="/x">x</a></body></html>`, page);
    expect(a.robots).toEqual({ noindex: true, nofollow: true });
    expect(a.links).toEqual([]);
  });

  it("recognises an app shell", () => {
    const shell = analyzeHtml(`<html><body><div id="root"></div><script src="/main.js"></script><noscript>Enable JavaScript to run this app.</noscript></body></html>`, page);
    expect(shell).toMatchObject({ appShell: true, needsJs: true, scriptCount: 1 });
    const staticPage = analyzeHtml(`<html><body><p>${"Plenty of server-rendered text. ".repeat(20)}</p><script>analytics()</script></body></html>`, page);
    expect(staticPage.needsJs).toBe(false);
    expect(analyzeHtml(`<html><body><p>Short page.</p></body></html>`, page).needsJs).toBe(false);
  });

  it("decodes declared charsets", () => {
    const latin1 = Buffer.from('<html><head><meta charset="iso-8859-1"></head><body>caf\xe9</body></html>', "latin1");
    expect(decodeHtml(latin1, "text/html")).toContain("café");
    expect(decodeHtml(Buffer.from("caf\xe9", "latin1"), "text/html; charset=windows-1252")).toBe("café");
    expect(decodeHtml(Buffer.from("café"), null)).toBe("café");
  });

  it("extracts Markdown links and twin candidates", () => {
    expect(extractMarkdownLinks("See [a](./a.md), ![img](/i.png), <https://docs.example.com/b> and [c](mailto:x@y.z).", "https://docs.example.com/dir/page.md")).toEqual([
      "https://docs.example.com/dir/a.md",
      "https://docs.example.com/b",
    ]);
    expect(markdownTwinCandidate("https://d.example/guide/intro")).toBe("https://d.example/guide/intro.md");
    expect(markdownTwinCandidate("https://d.example/guide/")).toBe("https://d.example/guide/index.html.md");
    expect(markdownTwinCandidate("https://d.example/page.html")).toBe("https://d.example/page.html.md");
    expect(markdownTwinCandidate("https://d.example/search?q=1")).toBeNull();
    expect(looksLikeMarkdown(Buffer.from("# Title"), "text/markdown")).toBe(true);
    expect(looksLikeMarkdown(Buffer.from("<!DOCTYPE html><html>"), "text/plain")).toBe(false);
    expect(looksLikeMarkdown(Buffer.from("# Title"), "text/html")).toBe(false);
  });
});

describe("formats", () => {
  it.each([
    ["text/html; charset=utf-8", "/a", "<p>", "html"],
    ["application/xhtml+xml", "/a", "<p>", "html"],
    ["text/markdown", "/a", "# x", "markdown"],
    ["text/plain", "/readme.md", "# x", "markdown"],
    ["text/plain", "/notes", "x", "text"],
    ["application/pdf", "/a", "%PDF-1.7", "pdf"],
    ["application/octet-stream", "/download", "%PDF-1.7", "pdf"],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "/a.docx", "PK\u0003\u0004", "docx"],
    ["application/octet-stream", "/a.docx", "PK\u0003\u0004", "docx"],
    [null, "/x", "<!DOCTYPE html><html>", "html"],
    ["image/png", "/a.png", "\u0089PNG", null],
    ["application/json", "/a.json", "{}", null],
    ["application/zip", "/a.zip", "PK\u0003\u0004", null],
  ])("%s %s -> %s", (type, path, body, expected) => {
    expect(detectFormat(type, `https://d.example${path}`, Buffer.from(body, "latin1"))).toBe(expected);
  });
});

describe("scope and traps", () => {
  const site = new URL("https://example.com/");
  it("treats www and http/https variants as one site", () => {
    expect(sameSite(new URL("https://www.example.com/a"), site)).toBe(true);
    expect(sameSite(new URL("http://example.com/a"), site)).toBe(true);
    expect(sameSite(new URL("https://docs.example.com/a"), site)).toBe(false);
    expect(sameSite(new URL("https://example.com:8443/a"), site)).toBe(false);
    expect(sameSite(new URL("https://notexample.com/a"), site)).toBe(false);
  });

  it("normalises include_paths and matches prefixes", () => {
    expect(normalizeIncludePaths(["docs/", "/docs/", " https://example.com/api/ ", ""])).toEqual(["/docs/", "/api/"]);
    expect(inIncludePaths(new URL("https://example.com/docs/a"), ["/docs/"])).toBe(true);
    expect(inIncludePaths(new URL("https://example.com/docs-old/a"), ["/docs/"])).toBe(false);
    expect(inIncludePaths(new URL("https://example.com/anything"), [])).toBe(true);
  });

  it("spots structural traps", () => {
    expect(structuralTrap(new URL("https://example.com/a/b/a/b/a/b"))).toContain('repeats the segment "a" 3 times');
    expect(structuralTrap(new URL(`https://example.com/${Array.from({ length: 17 }, (_, i) => `s${i}`).join("/")}`))).toContain("deeper than 16");
    expect(structuralTrap(new URL(`https://example.com/?q=${"x".repeat(2100)}`))).toContain("longer than 2083");
    expect(structuralTrap(new URL("https://example.com/docs/guide/install"))).toBeNull();
  });

  it("caps URLs per shape and query variants per path, except for URLs the site lists", () => {
    expect(urlPattern(new URL("https://example.com/calendar/2024/05?view=week&day=3"))).toBe("example.com/calendar/{n}/{n}?day&view");
    const guard = new TrapGuard({ maxPagesPerPattern: 3, maxQueryVariantsPerPath: 2 });
    const admit = (u: string, listed = false) => guard.admit(new URL(u), listed);
    expect(admit("https://example.com/cal/2024/1")).toBeNull();
    expect(admit("https://example.com/cal/2024/2")).toBeNull();
    expect(admit("https://example.com/cal/2024/3")).toBeNull();
    expect(admit("https://example.com/cal/2024/4")).toContain("possible link trap");
    expect(admit("https://example.com/cal/2024/5", true)).toBeNull();
    expect(admit("https://example.com/s?q=1")).toBeNull();
    expect(admit("https://example.com/s?q=2")).toBeNull();
    expect(admit("https://example.com/s?p=3")).toContain("query-string variants");
  });
});
