// HTTP details of the fetcher that fetcher.test.ts does not cover: encodings, methods and bodies,
// redirect semantics, response heads, streaming limits.

import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError } from "../../src/crawl/errors.js";
import { createFetcher, formatBytes, type Fetcher } from "../../src/crawl/fetcher.js";
import { createUrlPolicy } from "../../src/crawl/url-policy.js";
import { send, serve, type FixtureServer } from "./fixtures.js";

let site: FixtureServer;
let other: FixtureServer;
let fetcher: Fetcher;

/** Echoes what the server received: method, headers and body. */
function echo(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString();
    send(req, res, { type: "application/json", body: JSON.stringify({ method: req.method, headers: req.headers, body }) });
  });
}

function endless(res: import("node:http").ServerResponse): void {
  res.writeHead(200, { "content-type": "text/plain" });
  const chunk = Buffer.alloc(64 * 1024, 0x63);
  const pump = () => {
    while (!res.destroyed) if (!res.write(chunk)) return void res.once("drain", pump);
  };
  pump();
}

beforeAll(async () => {
  other = await serve((req, res) => echo(req, res));
  site = await serve((req, res, { url }) => {
    const p = url.pathname;
    const redirect = (status: number, to: string) => {
      res.writeHead(status, { location: to });
      res.end();
    };
    if (p === "/echo") return echo(req, res);
    if (p === "/303") return redirect(303, "/echo");
    if (p === "/302") return redirect(302, "/echo");
    if (p === "/307") return redirect(307, "/echo");
    if (p === "/cross") return redirect(302, `${other.base}/echo`);
    if (p === "/br") return send(req, res, { headers: { "content-encoding": "br" }, body: brotliCompressSync("<p>brotli</p>") });
    if (p === "/deflate") return send(req, res, { headers: { "content-encoding": "deflate" }, body: deflateSync("<p>deflate</p>") });
    if (p === "/gzip-truncate") return send(req, res, { headers: { "content-encoding": "gzip" }, body: gzipSync(Buffer.alloc(100_000, 0x61)) });
    if (p === "/unknown-encoding") return send(req, res, { headers: { "content-encoding": "x-custom" }, body: "raw bytes" });
    if (p === "/no-content") {
      res.writeHead(204);
      return void res.end();
    }
    if (p === "/teapot") {
      res.writeHead(418, "Short And Stout", { "content-type": "text/plain", "x-multi": ["a", "b"] });
      return void res.end("tea");
    }
    if (p === "/endless") return endless(res);
    if (p === "/slow-body") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("start");
      const t = setTimeout(() => res.end("end"), 5_000);
      res.on("close", () => clearTimeout(t));
      return;
    }
    if (p === "/cut") {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
      res.write("partial");
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (p === "/redirect-with-body") {
      res.writeHead(301, { location: "/echo", "content-type": "text/html" });
      return void res.end("<p>moved</p>");
    }
    if (p.startsWith("/many/")) return redirect(302, `/many/${Number(p.slice(6)) + 1}`);
    send(req, res, { type: "text/plain", body: "fallback" });
  });
  fetcher = createFetcher({ guard: createUrlPolicy({ allowPrivateNetworks: true }), userAgent: "TestBot/1" });
});
afterAll(async () => {
  fetcher.close();
  await site.close();
  await other.close();
});

async function failure(path: string, opts = {}): Promise<FetchError> {
  const err = await fetcher.fetch(`${site.base}${path}`, opts).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

type Echo = { method: string; headers: Record<string, string>; body: string };
const echoed = (body: Buffer) => JSON.parse(body.toString()) as Echo;

describe("fetcher encodings", () => {
  it("decodes brotli and deflate", async () => {
    expect((await fetcher.fetch(`${site.base}/br`)).body.toString()).toBe("<p>brotli</p>");
    expect((await fetcher.fetch(`${site.base}/deflate`)).body.toString()).toBe("<p>deflate</p>");
  });

  it("asks for gzip, deflate and br", async () => {
    const sent = echoed((await fetcher.fetch(`${site.base}/echo`)).body);
    expect(sent.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  it("counts the truncation cap after decompression", async () => {
    const res = await fetcher.fetch(`${site.base}/gzip-truncate`, { maxBytes: 500, onTooLarge: "truncate" });
    expect(res.truncated).toBe(true);
    expect(res.body.equals(Buffer.alloc(500, 0x61))).toBe(true);
  });

  it("passes unknown encodings through untouched", async () => {
    const res = await fetcher.fetch(`${site.base}/unknown-encoding`);
    expect(res.body.toString()).toBe("raw bytes");
    expect(res.headers["content-encoding"]).toBe("x-custom");
  });
});

describe("fetcher requests", () => {
  it("sends the user agent, default accept, caller headers (lower-cased) and a body", async () => {
    const res = await fetcher.fetch(`${site.base}/echo`, { method: "post", headers: { "X-Token": "t1", "Content-Type": "text/plain" }, body: Buffer.from("hello") });
    const sent = echoed(res.body);
    expect(sent.method).toBe("POST");
    expect(sent.body).toBe("hello");
    expect(sent.headers["user-agent"]).toBe("TestBot/1");
    expect(sent.headers["x-token"]).toBe("t1");
    expect(sent.headers["content-length"]).toBe("5");
    expect(sent.headers.accept).toContain("text/html");
  });

  it("uses the caller's accept header", async () => {
    const sent = echoed((await fetcher.fetch(`${site.base}/echo`, { accept: "text/markdown" })).body);
    expect(sent.headers.accept).toBe("text/markdown");
  });

  it("answers HEAD with an empty body", async () => {
    const res = await fetcher.fetch(`${site.base}/fallback`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers["content-length"]).toBe("8");
  });

  it("returns 204 with an empty body", async () => {
    const res = await fetcher.fetch(`${site.base}/no-content`);
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
  });

  it("keeps the status text and joins repeated headers", async () => {
    const res = await fetcher.fetch(`${site.base}/teapot`);
    expect(res.status).toBe(418);
    expect(res.statusText).toBe("Short And Stout");
    expect(res.headers["x-multi"]).toBe("a, b");
    expect(res.contentType).toBe("text/plain");
    expect(res.body.toString()).toBe("tea");
    expect(res.truncated).toBe(false);
  });
});

describe("fetcher redirect semantics", () => {
  it("continues a POST as GET without a body after 303 and 302", async () => {
    for (const path of ["/303", "/302"]) {
      const res = await fetcher.fetch(`${site.base}${path}`, { method: "POST", headers: { "content-type": "text/plain" }, body: Buffer.from("data") });
      const sent = echoed(res.body);
      expect(sent.method).toBe("GET");
      expect(sent.body).toBe("");
      expect(sent.headers["content-type"]).toBeUndefined();
      expect(res.redirects).toEqual([`${site.base}${path}`]);
    }
  });

  it("repeats method and body after 307", async () => {
    const res = await fetcher.fetch(`${site.base}/307`, { method: "POST", body: Buffer.from("data") });
    const sent = echoed(res.body);
    expect(sent.method).toBe("POST");
    expect(sent.body).toBe("data");
  });

  it("keeps credentials on the same origin and drops them for another", async () => {
    const headers = { authorization: "Bearer x", cookie: "a=1" };
    const same = echoed((await fetcher.fetch(`${site.base}/302`, { headers })).body);
    expect(same.headers.authorization).toBe("Bearer x");
    expect(same.headers.cookie).toBe("a=1");
    const res = await fetcher.fetch(`${site.base}/cross`, { headers });
    expect(res.finalUrl).toBe(`${other.base}/echo`);
    const cross = echoed(res.body);
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers.cookie).toBeUndefined();
  });

  it("skips a redirect's body", async () => {
    const res = await fetcher.fetch(`${site.base}/redirect-with-body`);
    expect(res.status).toBe(200);
    expect(echoed(res.body).method).toBe("GET");
  });

  it("honours maxRedirects", async () => {
    const err = await failure("/many/0", { maxRedirects: 2 });
    expect(err.code).toBe("too_many_redirects");
    expect(err.message).toBe(`${site.base}/many/0 redirects more than 2 times.`);
    expect(site.count("/many/3")).toBe(0);
  });
});

describe("fetcher limits", () => {
  it("aborts an endless body at the cap instead of reading it all", async () => {
    const err = await failure("/endless", { maxBytes: 100_000, timeoutMs: 5_000 });
    expect(err.code).toBe("too_large");
    expect(err.message).toBe(`${site.base}/endless is larger than the page size limit of 98 KB; it was skipped.`);
  });

  it("truncates an endless body", async () => {
    const res = await fetcher.fetch(`${site.base}/endless`, { maxBytes: 100_000, onTooLarge: "truncate", timeoutMs: 5_000 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(100_000);
  });

  it("times out a body that stalls", async () => {
    const err = await failure("/slow-body", { timeoutMs: 300 });
    expect(err.code).toBe("timeout");
    expect(err.message).toBe(`${site.base}/slow-body did not answer within 0.3 s.`);
  });

  it("reports a connection cut mid-response as a network error", async () => {
    const err = await failure("/cut");
    expect(err.code).toBe("network");
    expect(err.url).toBe(`${site.base}/cut`);
  });

  it("refuses a signal that is already aborted", async () => {
    const err = await failure("/echo", { signal: AbortSignal.abort() });
    expect(err.code).toBe("aborted");
    expect(err.message).toBe("The request was cancelled.");
  });

  it("formats byte sizes", () => {
    expect(formatBytes(5 * 1024 * 1024)).toBe("5 MB");
    expect(formatBytes(100_000)).toBe("98 KB");
    expect(formatBytes(512)).toBe("512 bytes");
  });
});
