// Issue 14, observability: /livez, /readyz (503 with the reason while the model is unavailable,
// 200 once it is), /health "degraded" without a model, and /metrics in the Prometheus text format
// with counters that move when requests, uploads, searches and crawls happen.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { writeTinyModel } from "../embed/tiny-onnx.js";
import { serve, send, html, links, type FixtureServer } from "../crawl/fixtures.js";
import { waitCrawl } from "../crawl-api/helpers.js";
import { parsePrometheusText, total } from "./prom-text.js";

const VOCAB = ["the", "gearbox", "lubrication", "interval", "is", "hours", "turbines", "page", "one", "two"];

async function scrape(s: TestServer) {
  const r = await s.call("GET", "/metrics");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(r.body);
}

describe("probes and metrics", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-obs-"));
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-obs-models-"));
  const env = { EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: modelsDir, ALLOW_MODEL_DOWNLOAD: "false", CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise" };
  let s: TestServer | undefined;
  let site: FixtureServer | undefined;
  afterAll(async () => {
    await s?.close();
    await site?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("without the model: live, not ready (saying why), health 200 degraded", async () => {
    s = await startServer(env, { dataDir, listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(false);
    const live = await s.call("GET", "/livez");
    expect(live).toMatchObject({ status: 200, body: { status: "ok" } });
    const ready = await s.call("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe("not_ready");
    expect(ready.body.reasons.join(" ")).toMatch(/^model: .*(MODELS_DIR|download)/i);
    const health = await s.call("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("degraded");
    expect(health.body.checks.model.status).toBe("degraded");
    const m = await scrape(s);
    expect(total(m, "quarry_model_ready")).toBe(0);
    await s.close();
    s = undefined;
  });

  it("with the model: ready, and the counters move with requests, uploads, searches and crawls", async () => {
    writeTinyModel(modelsDir, "Xenova/bge-small-en-v1.5", VOCAB, 384);
    s = await startServer(env, { dataDir, listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    const ready = await s.call("GET", "/readyz");
    expect(ready).toMatchObject({ status: 200, body: { status: "ready", reasons: [] } });
    expect((await s.call("GET", "/health")).body.status).toBe("ok");

    const before = await scrape(s);
    expect(before.get("quarry_process_cpu_seconds_total")?.type).toBe("counter"); // process metrics
    expect(before.get("quarry_http_request_duration_seconds")?.type).toBe("histogram");

    const { adminKey: key } = await s.tenant();
    const src = await createSource(s, key);
    const col = await createCollection(s, key, [src]);
    const up = await upload(s, key, src, [
      { name: "a.md", content: "# Turbines\n\nThe gearbox lubrication interval is 2000 hours." },
      { name: "b.md", content: "# Page two\n\nThe turbines page two." },
    ]);
    expect(up.status).toBe(202);
    await waitIndexed(s, key, src);
    for (let i = 0; i < 3; i++) {
      expect((await s.call("POST", "/search", { key, json: { collection_id: col, query: "gearbox lubrication" } })).status).toBe(200);
    }
    expect((await s.call("POST", "/search", { key, json: { collection_id: "col_missing", query: "x" } })).status).toBe(404);

    site = await serve((req, res, { url }) => {
      if (url.pathname === "/") return send(req, res, { body: html("Home", `<p>The home page one.</p>${links("/one", "/dead")}`) });
      if (url.pathname === "/one") return send(req, res, { body: html("One", "<p>Page one of the turbines site.</p>") });
      send(req, res, { status: 404, body: "not found", type: "text/plain" });
    });
    const crawl = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/`, max_depth: 2 } });
    expect(crawl.status).toBe(202);
    await waitCrawl(s, key, crawl.body.id);
    // pages are searchable lexically first; their vectors follow from the backfill
    let after = await scrape(s);
    for (const deadline = Date.now() + 30_000; total(after, "quarry_embedding_backlog_chunks") > 0 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape(s);
    }
    const searchRoute = { method: "POST", route: "/search", status: "200" };
    expect(total(after, "quarry_http_requests_total", searchRoute) - total(before, "quarry_http_requests_total", searchRoute)).toBe(3);
    expect(total(after, "quarry_http_requests_total", { route: "/search", status: "404" })).toBe(1);
    expect(total(after, "quarry_http_request_duration_seconds", searchRoute, "quarry_http_request_duration_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(total(after, "quarry_search_duration_seconds", { mode: "hybrid" }, "quarry_search_duration_seconds_count")).toBe(3);
    // two uploads and the crawl's two pages, each one finished ingest job
    expect(total(after, "quarry_jobs_total", { kind: "ingest", outcome: "done" })).toBe(4);
    expect(total(after, "quarry_embedding_duration_seconds", { kind: "query" }, "quarry_embedding_duration_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(total(after, "quarry_embedded_texts_total", { kind: "passage" })).toBeGreaterThanOrEqual(4);
    expect(total(after, "quarry_crawl_pages_total", { outcome: "fetched" })).toBe(2);
    expect(total(after, "quarry_crawl_pages_total", { outcome: "failed" })).toBe(1);
    expect(total(after, "quarry_crawls_total", { status: "completed" })).toBe(1);
    expect(total(after, "quarry_queue_jobs_pending")).toBe(0);
    expect(total(after, "quarry_embedding_backlog_chunks")).toBe(0);
    expect(total(after, "quarry_tenants")).toBe(1);
    expect(total(after, "quarry_model_ready")).toBe(1);
  });
});
