import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError } from "../../src/crawl/errors.js";
import { createFetcher, type Fetcher } from "../../src/crawl/fetcher.js";
import { PAGE_SIZE_LIMIT_BYTES, USER_AGENT } from "../../src/crawl/limits.js";
import { createUrlPolicy } from "../../src/crawl/url-policy.js";
import { send, serve, type FixtureServer } from "./fixtures.js";

let site: FixtureServer;
let fetcher: Fetcher;

beforeAll(async () => {
  site = await serve((req, res, { url }) => {
    const p = url.pathname;
    const redirect = (to: string, status = 302) => {
      res.writeHead(status, { location: to });
      res.end();
    };
    if (p === "/r1") return redirect("/r2", 301);
    if (p === "/r2") return redirect("/r3", 307);
    if (p === "/r3") return redirect("/final?x=1#frag", 308);
    if (p === "/final") return send(req, res, { body: "<p>final</p>" });
    if (p === "/loop-a") return redirect("/loop-b");
    if (p === "/loop-b") return redirect("/loop-a");
    if (p.startsWith("/many/")) return redirect(`/many/${Number(p.slice(6)) + 1}`);
    if (p === "/bad-redirect") return redirect("mailto:someone@example.org");
    if (p === "/slow") {
      const t = setTimeout(() => send(req, res, { body: "late" }), 5_000);
      res.on("close", () => clearTimeout(t));
      return;
    }
    if (p === "/huge") return send(req, res, { body: Buffer.alloc(PAGE_SIZE_LIMIT_BYTES + 1024, 0x61) });
    if (p === "/huge-chunked") {
      // no content-length: the cap has to be enforced while streaming
      res.writeHead(200, { "content-type": "text/html" });
      const chunk = Buffer.alloc(256 * 1024, 0x62);
      let sent = 0;
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (p === "/gzip-bomb") {
      return send(req, res, { headers: { "content-encoding": "gzip" }, body: gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)) });
    }
    if (p === "/gzip") return send(req, res, { headers: { "content-encoding": "gzip" }, body: gzipSync("<p>compressed</p>") });
    if (p === "/etag") return send(req, res, { body: "<p>v1</p>", etag: true, lastModified: "Tue, 01 Oct 2024 10:00:00 GMT" });
    if (p === "/headers") return send(req, res, { type: "application/json", body: JSON.stringify(req.headers) });
    send(req, res, { status: 404, body: "missing" });
  });
  fetcher = createFetcher({ guard: createUrlPolicy({ allowPrivateNetworks: true }) });
});
afterAll(async () => {
  fetcher.close();
  await site.close();
});

async function failure(path: string, opts = {}): Promise<FetchError> {
  const err = await fetcher.fetch(`${site.base}${path}`, opts).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe("fetcher", () => {
  it("follows a redirect chain and reports every hop", async () => {
    const res = await fetcher.fetch(`${site.base}/r1`);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${site.base}/r1`);
    expect(res.finalUrl).toBe(`${site.base}/final?x=1`);
    expect(res.redirects).toEqual([`${site.base}/r1`, `${site.base}/r2`, `${site.base}/r3`]);
    expect(res.body.toString()).toBe("<p>final</p>");
    expect(res.contentType).toBe("text/html; charset=utf-8");
  });

  it("detects redirect loops", async () => {
    const err = await failure("/loop-a");
    expect(err.code).toBe("redirect_loop");
    expect(err.message).toContain("redirects in a loop");
  });

  it("stops after 10 redirects", async () => {
    const err = await failure("/many/0");
    expect(err.code).toBe("too_many_redirects");
    expect(site.count("/many/10")).toBe(1);
    expect(site.count("/many/11")).toBe(0);
  });

  it("refuses redirects to non-http schemes", async () => {
    expect((await failure("/bad-redirect")).code).toBe("bad_redirect");
  });

  it("times out slow pages", async () => {
    const t0 = Date.now();
    const err = await failure("/slow", { timeoutMs: 300 });
    expect(err.code).toBe("timeout");
    expect(err.message).toContain("did not answer within 0.3 s");
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("aborts promptly on the caller's signal", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const t0 = Date.now();
    const err = await failure("/slow", { signal: ac.signal });
    expect(err.code).toBe("aborted");
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  it.each(["/huge", "/huge-chunked", "/gzip-bomb"])("refuses bodies over the page size limit: %s", async (path) => {
    const err = await failure(path);
    expect(err.code).toBe("too_large");
    expect(err.message).toContain("larger than the page size limit of 5 MB");
  });

  it("can truncate instead (robots.txt)", async () => {
    const res = await fetcher.fetch(`${site.base}/huge-chunked`, { maxBytes: 1000, onTooLarge: "truncate" });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(1000);
  });

  it("inflates gzip", async () => {
    const res = await fetcher.fetch(`${site.base}/gzip`);
    expect(res.body.toString()).toBe("<p>compressed</p>");
  });

  it("sends conditional requests and passes 304 through", async () => {
    const first = await fetcher.fetch(`${site.base}/etag`);
    expect(first.etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(first.lastModified).toBe("Tue, 01 Oct 2024 10:00:00 GMT");
    const second = await fetcher.fetch(`${site.base}/etag`, { etag: first.etag, lastModified: first.lastModified });
    expect(second.status).toBe(304);
    expect(second.body.length).toBe(0);
    const sent = site.hits.filter((h) => h.path === "/etag").at(-1);
    expect(sent?.headers["if-none-match"]).toBe(first.etag);
    expect(sent?.headers["if-modified-since"]).toBe(first.lastModified);
  });

  it("identifies itself", async () => {
    const res = await fetcher.fetch(`${site.base}/headers`);
    const headers = JSON.parse(res.body.toString()) as Record<string, string>;
    expect(headers["user-agent"]).toBe(USER_AGENT);
    expect(USER_AGENT).toBe("QuarryBot/0.2 (+https://github.com/quarry)");
    expect(headers["accept-encoding"]).toContain("gzip");
  });

  it("returns HTTP errors as responses", async () => {
    const res = await fetcher.fetch(`${site.base}/nope`);
    expect(res.status).toBe(404);
  });

  it("reports refused connections", async () => {
    const closed = await serve(() => undefined);
    const url = `${closed.base}/`;
    await closed.close();
    const err = await fetcher.fetch(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).code).toBe("network");
    expect((err as FetchError).message).toContain("ECONNREFUSED");
  });
});
