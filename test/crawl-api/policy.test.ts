// What a deployment refuses before anything is fetched: URLs of private, loopback and link-local
// networks (CRAWL_ALLOW_PRIVATE_NETWORKS off, the default), non-http schemes, and render_js where
// JavaScript rendering is off. The policy decides from the URL and its addresses, so no request
// ever leaves for a refused address; the only fixture is on loopback and must see no traffic.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { html, send, serve, type FixtureServer } from "../crawl/fixtures.js";

describe("crawl URL policy and deployment options", () => {
  let s: TestServer;
  let key: string;
  let site: FixtureServer;
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-no-models-"));

  beforeAll(async () => {
    // no embedding model needed here: an ONNX profile without its files starts degraded at once
    s = await startServer({
      CRAWL_RENDER_JS: "false",
      EMBEDDING_PROFILE: "bge-small-en-v1.5",
      MODELS_DIR: modelsDir,
      ALLOW_MODEL_DOWNLOAD: "false",
    });
    key = (await s.tenant()).adminKey;
    site = await serve((req, res) => send(req, res, { body: html("Home", "") }));
  });
  afterAll(async () => {
    await s?.close();
    await site?.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  const refused = () => [
    [`${site.base}/`, /127\.0\.0\.1, a loopback address/],
    ["http://localhost:8080/docs", /localhost is a loopback name/],
    ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254, a link-local address/],
    ["http://[::1]/", /::1, a loopback address/],
    ["http://10.0.0.1/", /10\.0\.0\.1, a private/],
  ] as const;

  it("POST /crawl/check and POST /crawl refuse private, loopback and link-local addresses with 400", async () => {
    for (const [url, reason] of refused()) {
      for (const p of ["/crawl/check", "/crawl"]) {
        const r = await s.call("POST", p, { key, json: { url } });
        expect(r.status, `${p} ${url}`).toBe(400);
        expect(r.body.detail, `${p} ${url}`).toMatch(reason);
        expect(r.body.detail).toContain("crawling private networks is disabled on this deployment");
      }
    }
    expect(site.hits).toEqual([]);
    expect((await s.call("GET", "/crawl", { key })).body).toEqual([]);
    expect((await s.call("GET", "/data-sources", { key })).body).toEqual([]);
  });

  it("POST /webhooks refuses receivers the same policy refuses, with 400", async () => {
    for (const [url, reason] of refused()) {
      const r = await s.call("POST", "/webhooks", { key, json: { url, events: ["crawl.completed"] } });
      expect(r.status, url).toBe(400);
      expect(r.body.detail, url).toMatch(reason);
    }
    expect(site.hits).toEqual([]);
    expect((await s.call("GET", "/webhooks", { key })).body).toEqual([]);
  });

  it("refuses non-http schemes and credentials in the URL", async () => {
    const ftp = await s.call("POST", "/crawl", { key, json: { url: "ftp://files.example.org/docs/" } });
    expect(ftp.status).toBe(400);
    expect(ftp.body.detail).toContain("Only http and https URLs can be crawled");
    const creds = await s.call("POST", "/crawl/check", { key, json: { url: "https://user:secret@docs.example.org/" } });
    expect(creds.status).toBe(400);
    expect(creds.body.detail).toContain("Remove the user name and password");
  });

  it("render_js is refused with 400 when the deployment does not allow it", async () => {
    const r = await s.call("POST", "/crawl", { key, json: { url: "http://10.0.0.1/", render_js: true } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain("render_js is not allowed on this deployment");
    const caps = await s.call("GET", "/capabilities", { key });
    expect(caps.body.render_js).toBe(false);
    expect((await s.call("GET", "/crawl", { key })).body).toEqual([]);
  });

  it("validates the body (422) before any policy", async () => {
    const r = await s.call("POST", "/crawl", { key, json: { url: "https://docs.example.org/", max_depth: 11, page_limit: 0, include_paths: ["/a"], extra: 1 } });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: any) => d.loc.join("."));
    expect(locs).toEqual(expect.arrayContaining(["body.max_depth", "body.page_limit"]));
  });
});
