// The crawler's steps driven one at a time, with a state built by hand. Pure steps need no server;
// the network steps talk to the fixture docs site on loopback.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError } from "../../src/crawl/errors.js";
import { createFetcher } from "../../src/crawl/fetcher.js";
import type { CrawlOptions, CrawledPage, CrawlProgress, PreviousPage } from "../../src/crawl/types.js";
import { admitStart, discoverSeeds, honourCrawlDelay } from "../../src/crawl/steps/discover.js";
import { enqueueUrl, expandStored, onSite, sameSiteLinks } from "../../src/crawl/steps/enqueue.js";
import { claimCanonical, draftOf, readHtml, readMarkdown, type PageDraft } from "../../src/crawl/steps/extract.js";
import { fetchPage, isConditional } from "../../src/crawl/steps/fetch.js";
import { crawlError, crawlResult, stopReasonOf } from "../../src/crawl/steps/finish.js";
import { handNotModified, handPage, sha256 } from "../../src/crawl/steps/hand.js";
import { CrawlNetwork } from "../../src/crawl/steps/network.js";
import { processItem } from "../../src/crawl/steps/process.js";
import { CrawlScheduler } from "../../src/crawl/steps/schedule.js";
import { createCrawlState, createReport, planCrawl, type CrawlState, type QueueItem } from "../../src/crawl/steps/state.js";
import type { FetchResult } from "../../src/crawl/fetcher.js";
import { docsSite, fixtureGuard, serve, type FixtureServer } from "./fixtures.js";

/** A state for `url` and a report whose sink records everything. */
function setup(url: string, options: Partial<CrawlOptions> = {}) {
  const state = createCrawlState(planCrawl({ url, ...options }), new URL(url));
  const rec = { pages: [] as CrawledPage[], errors: [] as Array<[string, string]>, skips: [] as Array<[string, string]>, progress: [] as CrawlProgress[], queued: 0 };
  const report = createReport(
    state,
    {
      onPage: async (p) => void rec.pages.push(p),
      onError: (u, m) => void rec.errors.push([u, m]),
      onSkip: (u, r) => void rec.skips.push([u, r]),
      onProgress: (p) => void rec.progress.push(p),
    },
    () => rec.queued++,
  );
  return { state, report, rec };
}

const queued = (state: CrawlState) => state.queue.map((q) => [new URL(q.url).pathname, q.depth, q.source]);
const item = (url: string, depth = 1, source: QueueItem["source"] = "link"): QueueItem => ({ url, depth, source });

function draft(identity: string, body: string, extra: Partial<PageDraft> = {}): PageDraft {
  return {
    identity,
    fetchedUrl: identity,
    body: Buffer.from(body),
    contentType: "text/html",
    format: "html",
    etag: null,
    lastModified: null,
    title: undefined,
    links: [],
    unchanged: false,
    withheld: null,
    ...extra,
  };
}

describe("plan", () => {
  it("clamps depth and page limit, and takes earlier attempts' pages off the budget", () => {
    const plan = planCrawl({ url: "https://example.com/", maxDepth: 99, pageLimit: 3, alreadyCrawled: new Map([["https://example.com/", { links: [] }]]), includePaths: ["docs"] });
    expect(plan).toMatchObject({ maxDepth: 10, pageLimit: 3, budget: 2, includePaths: ["/docs"], renderJs: false, previous: null, maxRequests: 215 });
    expect(planCrawl({ url: "https://example.com/", maxDepth: -1, pageLimit: 0 })).toMatchObject({ maxDepth: 0, pageLimit: 1, budget: 1 });
  });
});

describe("enqueue step", () => {
  const site = new URL("https://www.example.com/");

  it("rewrites links to the site's own spelling and drops other sites", () => {
    expect(onSite("http://example.com/a?utm_source=x#top", site)).toBe("https://www.example.com/a");
    expect(onSite("https://www.example.com/b", site)).toBe("https://www.example.com/b");
    expect(onSite("https://other.example.org/", site)).toBeNull();
    expect(onSite("https://www.example.com:8443/", site)).toBeNull();
    expect(onSite("not a url", site)).toBeNull();
    expect(sameSiteLinks(["http://example.com/a", "https://www.example.com/a#x", "https://elsewhere.org/", "/relative"], site)).toEqual(["https://www.example.com/a"]);
  });

  it("queues each URL once, within depth and include_paths; traps are skipped and remembered", () => {
    const { state, report, rec } = setup("https://example.com/", { maxDepth: 2, includePaths: ["/docs/"] });
    enqueueUrl(state, report, "https://example.com/docs/a", 1, "link");
    enqueueUrl(state, report, "https://example.com/docs/a#again", 2, "link");
    enqueueUrl(state, report, "https://example.com/docs/deep", 3, "link");
    enqueueUrl(state, report, "https://example.com/blog/", 1, "link");
    enqueueUrl(state, report, "https://example.com/docs/x/x/x", 1, "sitemap");
    enqueueUrl(state, report, "https://example.com/docs/x/x/x", 1, "sitemap");
    expect(queued(state)).toEqual([["/docs/a", 1, "link"]]);
    expect(rec.queued).toBe(1);
    expect(rec.skips).toEqual([["https://example.com/docs/x/x/x", 'Not crawled: path repeats the segment "x" 3 times (possible link loop).']]);
    expect(state.counts.skipped).toBe(1);
    expect(state.seen.has("https://example.com/docs/deep")).toBe(false); // too deep is not "known": a shorter path may still reach it
  });

  it("expands the stored links of a page an earlier attempt handed over", () => {
    const already = new Map([["https://example.com/done", { links: ["https://example.com/next", "https://example.com/other"] }]]);
    const { state, report } = setup("https://example.com/", { alreadyCrawled: already });
    expect(expandStored(state, report, item("https://example.com/new"))).toBe(false);
    expect(expandStored(state, report, item("https://example.com/done", 1))).toBe(true);
    expect(queued(state)).toEqual([["/next", 2, "link"], ["/other", 2, "link"]]);
    expect(state.claimed.has("https://example.com/done")).toBe(true);
  });
});

describe("extract step", () => {
  const site = new URL("https://example.com/");
  const page = (head: string, body: string) => `<!doctype html><html><head><title> A  page </title>${head}</head><body>${body}</body></html>`;

  it("reads title, same-site links, robots meta, canonical and an advertised twin", () => {
    const found = readHtml(
      page(
        '<link rel="canonical" href="http://www.example.com/a?utm_medium=x"><link rel="alternate" type="text/markdown" href="/a.md"><meta name="robots" content="noindex">',
        '<a href="/b">b</a><a href="https://elsewhere.org/">x</a><a rel="nofollow" href="/c">c</a><a href="/b#frag">b again</a>',
      ),
      "https://example.com/a",
      site,
    );
    expect(found).toEqual({ title: "A page", links: ["https://example.com/b"], noindex: true, canonical: "https://example.com/a", advertisedTwin: "https://example.com/a.md" });
  });

  it("follows no links of a nofollow page; off-site canonical and twin are ignored", () => {
    const found = readHtml(
      page('<meta name="robots" content="nofollow"><link rel="canonical" href="https://elsewhere.org/a"><link rel="alternate" type="text/markdown" href="https://elsewhere.org/a.md">', '<a href="/b">b</a>'),
      "https://example.com/a",
      site,
    );
    expect(found).toMatchObject({ links: [], noindex: false, canonical: null, advertisedTwin: null });
  });

  it("reads title and links of Markdown", () => {
    const md = Buffer.from("# Guide\n\nSee [install](install.md), ![img](/x.png) and <https://elsewhere.org/>.\n");
    expect(readMarkdown(md, "https://example.com/docs/guide.md", site)).toEqual({ title: "Guide", links: ["https://example.com/docs/install.md"] });
  });

  it("withholds a start page outside include_paths, never a linked one", () => {
    const { state } = setup("https://example.com/", { includePaths: ["/docs/"] });
    const res = { finalUrl: "https://example.com/", body: Buffer.from("x"), contentType: "text/html", etag: '"e"', lastModified: null } as FetchResult;
    const start = draftOf(state, item("https://example.com/", 0, "start"), res, new URL(res.finalUrl), res.finalUrl, "html");
    expect(start).toMatchObject({ identity: "https://example.com/", etag: '"e"', withheld: "The start URL is outside include_paths; only its links were followed." });
    expect(draftOf(state, item("https://example.com/", 1), res, new URL(res.finalUrl), res.finalUrl, "html").withheld).toBeNull();
  });

  it("a page yields to its canonical URL while that is pending; a canonical already handed makes a duplicate; links are still followed", () => {
    const { state, report, rec } = setup("https://example.com/", { includePaths: ["/blog/"] });
    // the canonical URL is queued and the page yields to it, so the canonical page's own content is stored
    const first = draft("https://example.com/blog/p?page=1", "a", { links: ["https://example.com/blog/"] });
    expect(claimCanonical(state, report, item(first.identity), first, "https://example.com/blog/p")).toBe(false);
    expect(queued(state)).toEqual([["/blog/p", 1, "link"], ["/blog/", 2, "link"]]);
    expect(state.pending.has("https://example.com/blog/p")).toBe(true);

    // the canonical URL's own fetch (say it redirected) claims the identity; a later twin is a duplicate
    const own = draft("https://example.com/blog/p/", "own");
    expect(claimCanonical(state, report, item("https://example.com/blog/p"), own, "https://example.com/blog/p")).toBe(true);
    expect(own.identity).toBe("https://example.com/blog/p");
    expect(state.claimed.has("https://example.com/blog/p")).toBe(true);
    const amp = draft("https://example.com/blog/p-amp", "b");
    expect(claimCanonical(state, report, item(amp.identity), amp, "https://example.com/blog/p")).toBe(false);
    expect(rec.skips).toEqual([
      ["https://example.com/blog/p?page=1", "Duplicate of its canonical URL https://example.com/blog/p."],
      ["https://example.com/blog/p-amp", "Duplicate of its canonical URL https://example.com/blog/p."],
    ]);

    // a canonical known but no longer pending (its fetch failed) does not lose the page: it takes the identity
    state.seen.add("https://example.com/blog/gone");
    const orphan = draft("https://example.com/blog/gone?x=1", "d");
    expect(claimCanonical(state, report, item(orphan.identity), orphan, "https://example.com/blog/gone")).toBe(true);
    expect(orphan.identity).toBe("https://example.com/blog/gone");

    // a canonical outside include_paths does not replace the identity
    const other = draft("https://example.com/blog/q", "c");
    expect(claimCanonical(state, report, item(other.identity), other, "https://example.com/elsewhere")).toBe(true);
    expect(other.identity).toBe("https://example.com/blog/q");
  });
});

describe("hand step", () => {
  it("hands a page with its hash; a withheld page and a body already handed elsewhere are skipped", async () => {
    const { state, report, rec } = setup("https://example.com/");
    await handPage(state, report, item("https://example.com/a"), draft("https://example.com/a", "same", { title: "A", links: ["https://example.com/b"] }), null);
    await handPage(state, report, item("https://example.com/copy"), draft("https://example.com/copy", "same"), null);
    await handPage(state, report, item("https://example.com/n"), draft("https://example.com/n", "other", { withheld: "The page asks not to be indexed (robots noindex)." }), null);
    expect(rec.pages).toHaveLength(1);
    expect(rec.pages[0]).toMatchObject({ url: "https://example.com/a", depth: 1, title: "A", contentHash: sha256(Buffer.from("same")), unchanged: false, links: ["https://example.com/b"] });
    expect(rec.skips).toEqual([
      ["https://example.com/copy", "Same content as https://example.com/a."],
      ["https://example.com/n", "The page asks not to be indexed (robots noindex)."],
    ]);
    expect(state.counts).toEqual({ pagesThisRun: 1, unchangedPages: 0, errors: 0, skipped: 2 });
  });

  it("a body that hashes to the previous crawl's hash is handed as unchanged", async () => {
    const { state, report, rec } = setup("https://example.com/");
    const prev: PreviousPage = { etag: null, lastModified: null, contentHash: sha256(Buffer.from("v1")) };
    await handPage(state, report, item("https://example.com/a"), draft("https://example.com/a", "v1"), prev);
    expect(rec.pages[0]).toMatchObject({ unchanged: true, contentHash: prev.contentHash });
    expect(state.counts.unchangedPages).toBe(1);
  });

  it("a 304 hands the previous page and follows its stored links; a start page outside include_paths only its links", async () => {
    const { state, report, rec } = setup("https://example.com/docs/", { includePaths: ["/docs/"] });
    const prev: PreviousPage = { etag: '"old"', lastModified: "Tue, 01 Oct 2024 10:00:00 GMT", contentHash: "h", links: ["https://example.com/docs/a", "https://elsewhere.org/"], format: "html" };
    const res = { finalUrl: "https://example.com/docs/", etag: '"new"', lastModified: null } as FetchResult;
    await handNotModified(state, report, item("https://example.com/docs/", 1), res, prev);
    expect(rec.pages).toEqual([
      {
        url: "https://example.com/docs/",
        finalUrl: "https://example.com/docs/",
        depth: 1,
        contentType: null,
        body: Buffer.alloc(0),
        format: "html",
        etag: '"new"',
        lastModified: prev.lastModified,
        contentHash: "h",
        links: ["https://example.com/docs/a"],
        unchanged: true,
      },
    ]);
    expect(queued(state)).toEqual([["/docs/a", 2, "link"]]);

    const outside = setup("https://example.com/", { includePaths: ["/docs/"] });
    await handNotModified(outside.state, outside.report, item("https://example.com/", 0, "start"), { ...res, finalUrl: "https://example.com/" }, prev);
    expect(outside.rec.pages).toEqual([]);
    expect(queued(outside.state)).toEqual([["/docs/a", 1, "link"]]);
  });
});

describe("finish step", () => {
  it("cancelled wins over the request budget, which wins over the page limit", () => {
    const { state } = setup("https://example.com/", { pageLimit: 1 });
    expect(stopReasonOf(state, { cancelled: false, requestBudgetSpent: false })).toBe("completed");
    state.counts.pagesThisRun = 1;
    expect(stopReasonOf(state, { cancelled: false, requestBudgetSpent: false })).toBe("page_limit");
    expect(stopReasonOf(state, { cancelled: false, requestBudgetSpent: true })).toBe("request_budget");
    expect(stopReasonOf(state, { cancelled: true, requestBudgetSpent: true })).toBe("cancelled");
  });

  it("sets an error only when nothing was crawled and the crawl was not cancelled", () => {
    const { state } = setup("https://example.com/start");
    expect(crawlError(state, "completed")).toBe("No crawlable pages were found from https://example.com/start; check include_paths and robots.txt.");
    state.startError = "https://example.com/start answered HTTP 404 Not Found.";
    expect(crawlError(state, "completed")).toBe(state.startError);
    expect(crawlError(state, "cancelled")).toBeNull();
    const resumed = setup("https://example.com/", { alreadyCrawled: new Map([["https://example.com/", { links: [] }]]) });
    expect(crawlError(resumed.state, "completed")).toBeNull();
    expect(crawlResult(resumed.state, 7, "completed", null)).toEqual({
      pagesCrawled: 1, pagesThisRun: 0, unchangedPages: 0, errors: 0, skipped: 0, requests: 7, stopReason: "completed", error: null, crawlDelay: null,
    });
  });
});

describe("conditional requests", () => {
  const url = new URL("https://example.com/page");
  it("only where a 304 leaves nothing unknown, and never when rendering", () => {
    const base = { etag: '"e"', lastModified: null, contentHash: "h" };
    expect(isConditional(null, url, false)).toBe(false);
    expect(isConditional({ ...base }, url, false)).toBe(false); // HTML without stored links
    expect(isConditional({ ...base, links: [] }, url, false)).toBe(true);
    expect(isConditional({ ...base, format: "pdf" }, url, false)).toBe(true);
    expect(isConditional({ ...base, format: "pdf" }, url, true)).toBe(false);
    expect(isConditional({ ...base, links: [], format: "markdown" }, url, false)).toBe(false); // the twin was stored
    expect(isConditional({ ...base, links: [], format: "markdown" }, new URL("https://example.com/page.md"), false)).toBe(true);
  });
});

describe("scheduler", () => {
  it("never takes more items than the page budget can still use, and ends when the queue is idle", async () => {
    const { state } = setup("https://example.com/", { pageLimit: 3 });
    for (const p of ["a", "b", "c", "d", "e"]) state.queue.push(item(`https://example.com/${p}`));
    const ctl = new AbortController();
    let inFlight = 0;
    let maxInFlight = 0;
    const taken: string[] = [];
    const scheduler = new CrawlScheduler(state, ctl.signal, () => ctl.abort(), async (it) => {
      taken.push(new URL(it.url).pathname);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      state.counts.pagesThisRun++;
    }, () => undefined);
    await scheduler.run(5);
    expect(taken).toEqual(["/a", "/b", "/c"]);
    expect(maxInFlight).toBe(3);
    expect(state.head).toBe(3);
  });

  it("the first unexpected error stops the crawl and is kept", async () => {
    const { state } = setup("https://example.com/", { pageLimit: 10 });
    for (const p of ["a", "b", "c"]) state.queue.push(item(`https://example.com/${p}`));
    const ctl = new AbortController();
    const boom = new Error("the store is full");
    const scheduler = new CrawlScheduler(state, ctl.signal, () => ctl.abort(), async (it) => {
      if (it.url.endsWith("/a")) throw boom;
    }, () => undefined);
    await scheduler.run(1);
    expect(scheduler.failure).toBe(boom);
    expect(ctl.signal.aborted).toBe(true);
    expect(state.head).toBe(1);
    // a request aborted because the crawl stopped is not a failure of its own
    scheduler.noteFailure(new FetchError("aborted", "The request was cancelled.", ""));
    expect(scheduler.failure).toBe(boom);
  });
});

describe("steps against the docs site", () => {
  let docs: FixtureServer;
  beforeAll(async () => {
    docs = await serve(docsSite({ crawlDelay: 0.01 }));
  });
  afterAll(() => docs.close());

  const network = (maxRequests = 100) => {
    const stop = new AbortController();
    const fetcher = createFetcher({ guard: fixtureGuard(docs.base) });
    return { net: new CrawlNetwork(fetcher, stop, maxRequests), stop, fetcher };
  };

  it("discover: the start URL passes the guard; llms.txt then sitemap entries are queued at depth 1; crawl delay honoured", async () => {
    const { net, fetcher } = network();
    try {
      const start = await admitStart(`${docs.base}/`, fixtureGuard(docs.base), net.signal);
      const { state, report } = setup(start.href, { maxDepth: 3 });
      honourCrawlDelay(state, net, await net.robotsFor(start));
      expect(state.crawlDelay).toBe(0.01);
      await discoverSeeds(state, net, report);
      expect(queued(state)).toEqual([
        ["/docs/guide/install", 1, "llms"],
        ["/docs/llms-only", 1, "llms"],
        ["/docs/", 1, "sitemap"],
        ["/docs/guide/", 1, "sitemap"],
        ["/docs/only-in-sitemap", 1, "sitemap"],
        ["/blog/", 1, "sitemap"],
        ["/blog/post-1", 1, "sitemap"],
      ]);
      await expect(admitStart("ftp://example.org/", fixtureGuard(docs.base), net.signal)).rejects.toThrow();
    } finally {
      fetcher.close();
    }
  });

  it("discover: nothing at max_depth 0, not even a request", async () => {
    const { net, fetcher } = network();
    const { state, report } = setup(`${docs.base}/`, { maxDepth: 0 });
    await discoverSeeds(state, net, report);
    expect(state.queue).toEqual([]);
    expect(fetcher.requestCount).toBe(0);
    fetcher.close();
  });

  it("fetch: robots.txt disallow and HTTP errors end the item; a failing start page gives the crawl's error", async () => {
    const { net, fetcher } = network();
    const { state, report, rec } = setup(`${docs.base}/`);
    expect(await fetchPage(state, net, report, item(`${docs.base}/private/secret`))).toBeNull();
    expect(await fetchPage(state, net, report, item(`${docs.base}/nowhere`, 0, "start"))).toBeNull();
    expect(rec.skips).toEqual([[`${docs.base}/private/secret`, "Disallowed by robots.txt."]]);
    expect(rec.errors).toEqual([[`${docs.base}/nowhere`, `${docs.base}/nowhere answered HTTP 404 Not Found.`]]);
    expect(state.startError).toBe(rec.errors[0][1]);
    fetcher.close();
  });

  it("fetch: a redirect to a page already crawled is a duplicate; a 304 answers a conditional request", async () => {
    const { net, fetcher } = network();
    const { state, report, rec } = setup(`${docs.base}/`);
    const ok = await fetchPage(state, net, report, item(`${docs.base}/`));
    expect(ok).toMatchObject({ kind: "ok", finalNorm: `${docs.base}/` });
    expect(await fetchPage(state, net, report, item(`${docs.base}/start`))).toBeNull();
    expect(rec.skips).toEqual([[`${docs.base}/start`, `Duplicate of ${docs.base}/ (redirect).`]]);

    const etag = ok?.res.etag ?? null;
    const again = setup(`${docs.base}/`, { previous: () => ({ etag, lastModified: null, contentHash: "h", links: [] }) });
    expect(await fetchPage(again.state, net, again.report, item(`${docs.base}/`))).toMatchObject({ kind: "not-modified", prev: { etag } });
    fetcher.close();
  });

  it("fetch: a canonical twin that answers while the canonical URL's request is in flight yields to it", async () => {
    // The race behind a re-crawl storing /blog/post-1 again: a parallel worker's /blog/post-1-amp
    // answered while /blog/post-1's request was in flight, and used to become the page.
    const { net, fetcher } = network();
    const { state, report, rec } = setup(`${docs.base}/`);
    const post = `${docs.base}/blog/post-1`;
    state.seen.add(post);
    state.pending.add(post);
    const inFlight = fetchPage(state, net, report, item(post));
    const amp = draft(`${docs.base}/blog/post-1-amp`, "amp");
    expect(claimCanonical(state, report, item(amp.identity), amp, post)).toBe(false);
    expect(await inFlight).not.toBeNull();
    expect(rec.skips).toEqual([[amp.identity, `Duplicate of its canonical URL ${post}.`]]);
    fetcher.close();
  });

  it("network: the request budget stops the crawl", async () => {
    const { net, stop, fetcher } = network(1);
    await net.fetch(`${docs.base}/about`);
    await expect(net.fetch(`${docs.base}/page`)).rejects.toThrow("The crawl's request budget is spent.");
    expect(net.requestBudgetSpent).toBe(true);
    expect(stop.signal.aborted).toBe(true);
    fetcher.close();
  });

  it("process: one item through every step — an advertised Markdown twin is handed with the HTML page's links", async () => {
    const { net, fetcher } = network();
    const { state, report, rec } = setup(`${docs.base}/`, { maxDepth: 3 });
    await processItem(state, net, report, item(`${docs.base}/docs/api/`, 1));
    expect(rec.pages).toHaveLength(1);
    expect(rec.pages[0]).toMatchObject({ url: `${docs.base}/docs/api/`, finalUrl: `${docs.base}/docs/api.md`, format: "markdown", title: "API reference", links: [`${docs.base}/docs/`] });
    expect(queued(state)).toEqual([["/docs/", 2, "link"]]);
    expect(state.claimed.has(`${docs.base}/docs/api.md`)).toBe(true);
    // the same URL again is a duplicate, not fetched twice
    const hits = docs.count("/docs/api/");
    await processItem(state, net, report, item(`${docs.base}/docs/api/`, 1));
    expect(docs.count("/docs/api/")).toBe(hits);
    expect(rec.skips.at(-1)).toEqual([`${docs.base}/docs/api/`, "Duplicate of a page already crawled (canonical URL or redirect target)."]);
    fetcher.close();
  });
});
