import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCrawl } from "../../src/crawl/crawler.js";
import { UrlPolicyError } from "../../src/crawl/errors.js";
import type { UrlGuard } from "../../src/crawl/url-policy.js";
import { MAX_PAGES_PER_PATTERN, MAX_QUERY_VARIANTS_PER_PATH } from "../../src/crawl/limits.js";
import type { CrawlOptions, CrawledPage, CrawlProgress, PreviousPage } from "../../src/crawl/types.js";
import { DOCS_FULL, docsSite, html, links, send, serve, type FixtureServer } from "./fixtures.js";

interface Recorded {
  pages: CrawledPage[];
  errors: Array<[string, string]>;
  skips: Array<[string, string]>;
  progress: CrawlProgress[];
}

function recorder(onPage?: (page: CrawledPage, rec: Recorded) => void) {
  const rec: Recorded = { pages: [], errors: [], skips: [], progress: [] };
  const sink = {
    onPage: async (page: CrawledPage) => {
      rec.pages.push(page);
      onPage?.(page, rec);
    },
    onError: (url: string, msg: string) => rec.errors.push([url, msg]),
    onSkip: (url: string, reason: string) => rec.skips.push([url, reason]),
    onProgress: (p: CrawlProgress) => rec.progress.push(p),
  };
  return { rec, sink };
}

const paths = (pages: CrawledPage[]) => pages.map((p) => new URL(p.url).pathname + new URL(p.url).search);

async function crawl(options: CrawlOptions, onPage?: (page: CrawledPage, rec: Recorded) => void, signal?: AbortSignal) {
  const { rec, sink } = recorder(onPage);
  const result = await runCrawl({ allowPrivateNetworks: true, ...options }, sink, signal);
  return { rec, result };
}

describe("crawling the docs site", () => {
  let docs: FixtureServer;
  beforeAll(async () => {
    docs = await serve(docsSite());
  });
  afterAll(() => docs.close());

  it("crawls the whole site once, with sitemap and llms.txt seeds, honouring robots, nofollow and session ids", async () => {
    const before = docs.hits.length;
    const { rec, result } = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100 });
    const hits = docs.hits.slice(before).map((h) => h.path);

    expect(paths(rec.pages).sort()).toEqual([...DOCS_FULL].sort());
    expect(result).toMatchObject({ pagesCrawled: DOCS_FULL.length, pagesThisRun: DOCS_FULL.length, stopReason: "completed", error: null, errors: 0 });
    // each page fetched once; session and tracking variants collapse onto /page and /blog/post-1
    expect(hits.filter((h) => h.startsWith("/page"))).toEqual(["/page"]);
    expect(hits.filter((h) => h.startsWith("/blog/post-1") && !h.includes("amp"))).toEqual(["/blog/post-1"]);
    expect(new Set(rec.pages.map((p) => p.url)).size).toBe(rec.pages.length);
    // robots.txt disallow and rel=nofollow are never fetched
    expect(hits).not.toContain("/private/secret");
    expect(hits).not.toContain("/nofollow-target");
    expect(rec.skips).toContainEqual([`${docs.base}/private/secret`, "Disallowed by robots.txt."]);
    // the unsupported type and the canonical duplicate are fetched but skipped
    expect(rec.skips).toContainEqual([`${docs.base}/image.png`, "Unsupported content type image/png."]);
    expect(rec.skips).toContainEqual([`${docs.base}/blog/post-1-amp`, `Duplicate of its canonical URL ${docs.base}/blog/post-1.`]);

    const home = rec.pages.find((p) => p.url === `${docs.base}/`);
    expect(home).toMatchObject({ depth: 0, format: "html", title: "Home", contentType: "text/html; charset=utf-8", unchanged: false });
    expect(home?.etag).toMatch(/^"/);
    expect(home?.contentHash).toMatch(/^[0-9a-f]{64}$/);
    // links: normalised, same-site, without mailto/javascript/tel/external/nofollow
    expect(home?.links).toContain(`${docs.base}/page`);
    expect(home?.links).toContain(`${docs.base}/private/secret`);
    expect(home?.links.every((l) => l.startsWith(docs.base))).toBe(true);
    expect(home?.links).not.toContain(`${docs.base}/nofollow-target`);

    // <base href> resolution
    expect(rec.pages.find((p) => p.url === `${docs.base}/docs/`)?.links).toEqual([`${docs.base}/docs/guide/`, `${docs.base}/docs/api/`]);
    // Markdown twin handed instead of the HTML, under the HTML page's URL
    const api = rec.pages.find((p) => p.url === `${docs.base}/docs/api/`);
    expect(api).toMatchObject({ format: "markdown", finalUrl: `${docs.base}/docs/api.md`, title: "API reference", contentType: "text/markdown; charset=utf-8" });
    expect(api?.body.toString()).toContain("# API reference");
    expect(hits.filter((h) => h === "/docs/api.md")).toHaveLength(1);
    // non-HTML documents go to the sink like uploads
    expect(rec.pages.find((p) => p.url.endsWith("/files/manual.pdf"))?.format).toBe("pdf");
    expect(rec.pages.find((p) => p.url.endsWith("/files/notes.txt"))?.format).toBe("text");
    // sitemap and llms.txt entries are seeded at depth 1
    expect(rec.pages.find((p) => p.url.endsWith("/docs/only-in-sitemap"))?.depth).toBe(1);
    expect(rec.pages.find((p) => p.url.endsWith("/docs/llms-only"))?.depth).toBe(1);
    expect(rec.pages.find((p) => p.url.endsWith("/docs/guide/install"))?.depth).toBe(1);
    // progress is reported
    expect(rec.progress.at(-1)).toEqual({ pagesCrawled: DOCS_FULL.length, queued: 0, errors: 0 });
  });

  it("max_depth 0 fetches the start URL only", async () => {
    const { rec, result } = await crawl({ url: `${docs.base}/`, maxDepth: 0 });
    expect(paths(rec.pages)).toEqual(["/"]);
    expect(result.stopReason).toBe("completed");
  });

  it("max_depth 1: the start page's links plus sitemap and llms.txt entries", async () => {
    const { rec } = await crawl({ url: `${docs.base}/`, maxDepth: 1, pageLimit: 100 });
    expect(paths(rec.pages).sort()).toEqual(
      ["/", "/about", "/page", "/docs/", "/blog/", "/files/manual.pdf", "/files/notes.txt", "/docs/guide/install", "/docs/llms-only",
        "/docs/guide/", "/docs/only-in-sitemap", "/blog/post-1"].sort(),
    );
    expect(rec.pages.every((p) => p.depth <= 1)).toBe(true);
  });

  it("page_limit caps pages handed to the sink", async () => {
    const { rec, result } = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 5, concurrency: 3 });
    expect(rec.pages).toHaveLength(5);
    expect(result).toMatchObject({ pagesCrawled: 5, stopReason: "page_limit" });
  });

  it("include_paths keeps the crawl under the prefixes; the start page only contributes links", async () => {
    const { rec, result } = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100, includePaths: ["/docs/"] });
    expect(paths(rec.pages).sort()).toEqual(DOCS_FULL.filter((p) => p.startsWith("/docs/")).sort());
    expect(rec.skips).toContainEqual([`${docs.base}/`, "The start URL is outside include_paths; only its links were followed."]);
    expect(result.error).toBeNull();
  });

  it("cancel mid-crawl, then resume to completion without duplicates", async () => {
    const full = DOCS_FULL.length;
    const ac = new AbortController();
    const first = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100 }, (_p, rec) => {
      if (rec.pages.length === 4) ac.abort();
    }, ac.signal);
    expect(first.result.stopReason).toBe("cancelled");
    expect(first.rec.pages.length).toBeGreaterThanOrEqual(4);
    expect(first.rec.pages.length).toBeLessThan(full);

    const alreadyCrawled = new Map(first.rec.pages.map((p) => [p.url, { links: p.links }]));
    const before = docs.hits.length;
    const second = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100, alreadyCrawled });
    const hits = docs.hits.slice(before).map((h) => h.path);

    expect(second.result).toMatchObject({ stopReason: "completed", pagesCrawled: full, pagesThisRun: full - first.rec.pages.length });
    const all = [...paths(first.rec.pages), ...paths(second.rec.pages)];
    expect(all.sort()).toEqual([...DOCS_FULL].sort());
    // pages of the first attempt are not fetched again
    for (const p of first.rec.pages) expect(hits).not.toContain(new URL(p.url).pathname);
  });

  it("resume keeps the remaining page budget", async () => {
    const ac = new AbortController();
    const first = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 8 }, (_p, rec) => {
      if (rec.pages.length === 3) ac.abort();
    }, ac.signal);
    const alreadyCrawled = new Map(first.rec.pages.map((p) => [p.url, { links: p.links }]));
    const second = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 8, alreadyCrawled });
    expect(second.rec.pages).toHaveLength(8 - first.rec.pages.length);
    expect(second.result).toMatchObject({ pagesCrawled: 8, stopReason: "page_limit" });
    const urls = [...first.rec.pages, ...second.rec.pages].map((p) => p.url);
    expect(new Set(urls).size).toBe(8);
  });
});

describe("re-crawl", () => {
  it("sends conditional requests; only the changed page is new", async () => {
    let configText = "Configuration v1";
    const docs = await serve(docsSite({ configText: () => configText }));
    try {
      const first = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100 });
      const store = new Map<string, PreviousPage>(
        first.rec.pages.map((p) => [p.url, { etag: p.etag, lastModified: p.lastModified, contentHash: p.contentHash, links: p.links, format: p.format }]),
      );
      configText = "Configuration v2";
      const before = docs.hits.length;
      const second = await crawl({ url: `${docs.base}/`, maxDepth: 10, pageLimit: 100, previous: (url) => store.get(url) ?? null });
      const hits = docs.hits.slice(before);

      expect(paths(second.rec.pages).sort()).toEqual([...DOCS_FULL].sort());
      const changed = second.rec.pages.filter((p) => !p.unchanged).map((p) => new URL(p.url).pathname);
      expect(changed).toEqual(["/docs/guide/config"]);
      expect(second.result.unchangedPages).toBe(DOCS_FULL.length - 1);
      const config = second.rec.pages.find((p) => p.url.endsWith("/docs/guide/config"));
      expect(config?.body.toString()).toContain("Configuration v2");
      expect(config?.contentHash).not.toBe(store.get(config?.url ?? "")?.contentHash);
      // validators were sent and answered with 304; /about has none and is compared by hash
      const home = hits.find((h) => h.path === "/");
      expect(home?.headers["if-none-match"]).toBe(store.get(`${docs.base}/`)?.etag);
      const about = second.rec.pages.find((p) => p.url.endsWith("/about"));
      expect(about).toMatchObject({ unchanged: true, contentHash: store.get(`${docs.base}/about`)?.contentHash });
      expect(about?.body.length).toBeGreaterThan(0);
      // the twin was checked conditionally too
      const twinHit = hits.find((h) => h.path === "/docs/api.md");
      expect(twinHit?.headers["if-none-match"]).toBe(store.get(`${docs.base}/docs/api/`)?.etag);
      const unchangedHome = second.rec.pages.find((p) => p.url === `${docs.base}/`);
      expect(unchangedHome).toMatchObject({ unchanged: true, body: Buffer.alloc(0), contentHash: store.get(`${docs.base}/`)?.contentHash });
    } finally {
      await docs.close();
    }
  });
});

describe("canonical duplicates", () => {
  it("the canonical page's own content is stored even when its /amp twin answers first", async () => {
    // /blog/post-1 answers last: before, whichever of it and its twin ended first became the page
    const slow = await serve(docsSite({ delays: { "/blog/post-1": 400 } }));
    try {
      const { rec } = await crawl({ url: `${slow.base}/`, maxDepth: 10, pageLimit: 100 });
      expect(paths(rec.pages).sort()).toEqual([...DOCS_FULL].sort());
      expect(rec.pages.find((p) => p.url === `${slow.base}/blog/post-1`)?.title).toBe("Post 1");
      expect(rec.skips).toContainEqual([`${slow.base}/blog/post-1-amp`, `Duplicate of its canonical URL ${slow.base}/blog/post-1.`]);
      expect(slow.hits.filter((h) => h.path === "/blog/post-1")).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

describe("robots.txt crawl delay", () => {
  it("fetches one page at a time, spaced by the delay", async () => {
    const docs = await serve(docsSite({ crawlDelay: 0.2, sitemap: false, llms: false }));
    try {
      const { rec, result } = await crawl({ url: `${docs.base}/`, maxDepth: 1, pageLimit: 5, concurrency: 4 });
      expect(result.crawlDelay).toBe(0.2);
      expect(rec.pages).toHaveLength(5);
      const pageHits = docs.hits.filter((h) => !/robots|sitemap|llms|\.md$/.test(h.path));
      expect(docs.maxInFlight).toBe(1);
      // request starts are spaced by 200 ms; arrival times jitter a little under load
      for (let i = 1; i < pageHits.length; i++) expect(pageHits[i].at - pageHits[i - 1].at).toBeGreaterThanOrEqual(120);
      expect(pageHits.at(-1)!.at - pageHits[0].at).toBeGreaterThanOrEqual((pageHits.length - 1) * 200 - 60);
    } finally {
      await docs.close();
    }
  });
});

describe("markdown twins by probing", () => {
  it("uses <url>.md / index.html.md when the start page has one, HTML otherwise", async () => {
    const site = await serve((req, res, { url }) => {
      const md = (t: string) => send(req, res, { type: "text/markdown", body: `# ${t}\n\nMarkdown body of ${t}.\n` });
      switch (url.pathname) {
        case "/":
          return send(req, res, { body: html("Home", links("/guide", "/plain", "/docs/")) });
        case "/index.html.md":
          return md("Home");
        case "/guide":
          return send(req, res, { body: html("Guide", "") });
        case "/guide.md":
          return md("Guide");
        case "/plain":
          return send(req, res, { body: html("Plain", "") });
        case "/docs/":
          return send(req, res, { body: html("Docs", "") });
        case "/docs/index.html.md":
          // a soft 404: HTML served with 200 is not a twin
          return send(req, res, { body: html("Not found", "") });
      }
      send(req, res, { status: 404, body: "nope" });
    });
    try {
      const { rec } = await crawl({ url: `${site.base}/`, maxDepth: 2 });
      const byPath = Object.fromEntries(rec.pages.map((p) => [new URL(p.url).pathname, p]));
      expect(byPath["/"]).toMatchObject({ format: "markdown", title: "Home", finalUrl: `${site.base}/index.html.md` });
      expect(byPath["/guide"]).toMatchObject({ format: "markdown", title: "Guide" });
      expect(byPath["/plain"]).toMatchObject({ format: "html", title: "Plain" });
      expect(byPath["/docs/"]).toMatchObject({ format: "html", title: "Docs" });
      expect(rec.pages).toHaveLength(4);
    } finally {
      await site.close();
    }
  });
});

describe("hostile and broken pages", () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await serve((req, res, { url }) => {
      const p = url.pathname;
      const redirect = (to: string) => {
        res.writeHead(302, { location: to });
        res.end();
      };
      if (p === "/") {
        return send(req, res, {
          body: html("Home", links("/slow", "/error500", "/missing", "/huge", "/chain-1", "/loop-a", "/calendar/2024/06", "/shop", "/a/b/a/b/a/b/x", "/ok")),
        });
      }
      if (p === "/slow") {
        const t = setTimeout(() => send(req, res, { body: html("Slow", "") }), 5_000);
        res.on("close", () => clearTimeout(t));
        return;
      }
      if (p === "/error500") return send(req, res, { status: 500, body: "boom" });
      if (p === "/huge") return send(req, res, { body: Buffer.alloc(6 * 1024 * 1024, 0x61) });
      if (p === "/chain-1") return redirect("/chain-2");
      if (p === "/chain-2") return redirect("/chain-3");
      if (p === "/chain-3") return redirect("/ok");
      if (p === "/loop-a") return redirect("/loop-b");
      if (p === "/loop-b") return redirect("/loop-a");
      if (p === "/ok") return send(req, res, { body: html("OK", "") });
      const month = /^\/calendar\/(\d+)\/(\d+)$/.exec(p);
      if (month) {
        // a calendar: every month links to its neighbours and to each of its days, forever
        const y = Number(month[1]);
        const m = Number(month[2]);
        const next = m === 12 ? `/calendar/${y + 1}/1` : `/calendar/${y}/${m + 1}`;
        const prev = m === 1 ? `/calendar/${y - 1}/12` : `/calendar/${y}/${m - 1}`;
        const days = Array.from({ length: 28 }, (_, i) => `/calendar/${y}/${m}/${i + 1}`);
        return send(req, res, { body: html(`Calendar ${y}-${m}`, links(prev, next, ...days)) });
      }
      if (/^\/calendar\/\d+\/\d+\/\d+$/.test(p)) return send(req, res, { body: html(`Day ${p}`, "") });
      if (p === "/shop") {
        const variants = Array.from({ length: 60 }, (_, i) => `/shop?color=c${i}`);
        return send(req, res, { body: html(`Shop ${url.search}`, links(...variants)) });
      }
      send(req, res, { status: 404, body: html("Not found", "") });
    });
  });
  afterAll(() => site.close());

  it("records errors without stalling and stops link traps", async () => {
    const t0 = Date.now();
    const { rec, result } = await crawl({ url: `${site.base}/`, maxDepth: 10, pageLimit: 1000, requestTimeoutMs: 500, concurrency: 4 });
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(result.stopReason).toBe("completed");
    const errorFor = (path: string) => rec.errors.find(([u]) => u === `${site.base}${path}`)?.[1];
    expect(errorFor("/slow")).toContain("did not answer within 0.5 s");
    expect(errorFor("/error500")).toBe(`${site.base}/error500 answered HTTP 500 Internal Server Error.`);
    expect(errorFor("/missing")).toContain("answered HTTP 404");
    expect(errorFor("/huge")).toContain("larger than the page size limit of 5 MB; it was skipped");
    expect(errorFor("/loop-a")).toContain("redirects in a loop");
    expect(result.errors).toBe(5);
    // a redirect chain ends at one page, handed once under its final URL
    expect(rec.pages.filter((p) => p.url === `${site.base}/ok`)).toHaveLength(1);
    expect(rec.skips.some(([u, r]) => u === `${site.base}/chain-1` || r.includes("Duplicate"))).toBe(true);
    // traps
    const days = rec.pages.filter((p) => /\/calendar\/\d+\/\d+\/\d+$/.test(p.url));
    expect(days.length).toBeLessThanOrEqual(MAX_PAGES_PER_PATTERN);
    expect(rec.skips.some(([, r]) => r.includes("possible link trap"))).toBe(true);
    const shopVariants = site.hits.filter((h) => h.path.startsWith("/shop?"));
    expect(shopVariants.length).toBeLessThanOrEqual(MAX_QUERY_VARIANTS_PER_PATH);
    expect(site.count("/a/b/a/b/a/b/x")).toBe(0);
  });

  it("cancellation aborts in-flight requests promptly", async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const watcher = setInterval(() => {
      if (site.hits.some((h) => h.path === "/slow" && h.at >= t0)) ac.abort();
    }, 10);
    try {
      const { result } = await crawl({ url: `${site.base}/`, maxDepth: 2, pageLimit: 1000, requestTimeoutMs: 10_000, concurrency: 1 }, undefined, ac.signal);
      expect(result.stopReason).toBe("cancelled");
      expect(Date.now() - t0).toBeLessThan(2_000);
    } finally {
      clearInterval(watcher);
    }
  });

  it("a start page that fails becomes the crawl's error", async () => {
    const { result } = await crawl({ url: `${site.base}/error500`, maxDepth: 2 });
    expect(result.pagesCrawled).toBe(0);
    expect(result.error).toBe(`${site.base}/error500 answered HTTP 500 Internal Server Error.`);
  });

  it("a failing sink fails the crawl", async () => {
    const err = await runCrawl({ url: `${site.base}/`, allowPrivateNetworks: true }, {
      onPage: async () => {
        throw new Error("disk full");
      },
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe("disk full");
  });
});

describe("apex and www are one site", () => {
  it("follows the apex -> www redirect, crawls both spellings once, connects only where the guard said", async () => {
    const site = await serve((req, res, { url }) => {
      const host = req.headers.host ?? "";
      if (host.startsWith("fixture.test")) {
        res.writeHead(301, { location: `http://www.${host}${url.pathname}` });
        res.end();
        return;
      }
      const port = host.split(":")[1];
      if (url.pathname === "/") return send(req, res, { body: html("Home", links(`http://fixture.test:${port}/a`, "/a", "/b", `http://other.test:${port}/c`)) });
      if (url.pathname === "/a" || url.pathname === "/b") return send(req, res, { body: html(`Page ${url.pathname}`, links("/")) });
      send(req, res, { status: 404, body: "nope" });
    });
    // Names resolve through the guard only (no DNS); the fetcher must connect to what it returns.
    const guard: UrlGuard = {
      async check(input) {
        const u = new URL(String(input));
        if ((u.hostname === "fixture.test" || u.hostname === "www.fixture.test") && u.port === String(site.port)) {
          return { url: u, addresses: [{ address: "127.0.0.1", family: 4 }] };
        }
        throw new UrlPolicyError("blocked_address", `test: ${u.hostname} is not a fixture`, u.href);
      },
    };
    try {
      const { rec, result } = await crawl({ url: `http://fixture.test:${site.port}/`, guard, maxDepth: 2 });
      const www = `http://www.fixture.test:${site.port}`;
      expect(rec.pages.map((p) => p.url).sort()).toEqual([`${www}/`, `${www}/a`, `${www}/b`]);
      expect(result.errors).toBe(0);
      expect(site.hits.filter((h) => h.path === "/a" && h.headers.host?.startsWith("www."))).toHaveLength(1);
      expect(site.hits.some((h) => h.headers.host?.startsWith("other.test"))).toBe(false);
    } finally {
      await site.close();
    }
  });
});
