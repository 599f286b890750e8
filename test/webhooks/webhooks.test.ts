// Webhooks over HTTP: endpoints registered through the API, events raised by uploads and a crawl,
// delivered by the worker to loopback receivers. Signatures are checked with an independent
// implementation of the Standard Webhooks scheme (node:crypto here, not the service's code);
// a receiver's 500 is retried with the same webhook-id; one that always fails is disabled.
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, createCollection, createSource, startServer, upload, type TestServer } from "../kit/index.js";
import { html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { waitCrawl } from "../crawl-api/helpers.js";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  got: Received[];
  /** status answered to each request in turn; 200 once they run out */
  answers: number[];
  close(): Promise<void>;
}

async function receiver(answers: number[] = []): Promise<Receiver> {
  const got: Received[] = [];
  const r = { got, answers };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(parts).toString("utf8") });
      res.writeHead(r.answers.shift() ?? 200, { "content-type": "text/plain" });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}

/** The spec's verification, written from the spec: HMAC-SHA256 keyed with the base64 after whsec_. */
function verify(secret: string, h: http.IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${h["webhook-id"]}.${h["webhook-timestamp"]}.${body}`).digest();
  return String(h["webhook-signature"]).split(" ").some((sig) => {
    const [version, value] = sig.split(",");
    const given = Buffer.from(value ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

describe("webhooks", () => {
  let s: TestServer;
  let key: string;
  let good: Receiver;
  let broken: Receiver;
  let site: FixtureServer;
  let sourceId: string;
  let collectionId: string;
  let endpoint: any;

  beforeAll(async () => {
    s = await startServer({
      ...LIGHT_ENV,
      // Quarry's static model (in-process, no download): adaptation.completed needs a model to adapt
      EMBEDDING_PROFILE: "quarry-static",
      ADAPT_AUTO_MIN_DOCUMENTS: "0",
      CRAWL_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_DELAYS: "0.05,0.05",
      WEBHOOK_DISABLE_AFTER_FAILURES: "1",
      DEFAULT_PLAN: "enterprise",
    });
    key = (await s.tenant()).adminKey;
    good = await receiver([500]); // the first delivery fails once
    broken = await receiver(Array.from({ length: 50 }, () => 500));
    site = await serve((req, res, { url }) =>
      url.pathname === "/" ? send(req, res, { body: html("Home", links("/guide")) })
      : url.pathname === "/guide" ? send(req, res, { body: html("Guide", "<p>The guide explains the pelican feeding schedule.</p>") })
      : send(req, res, { status: 404, type: "text/plain", body: "no" }),
    );
    sourceId = await createSource(s, key, "Uploads");
    collectionId = await createCollection(s, key, [sourceId], "Main");
  });

  afterAll(async () => {
    await s?.close();
    await Promise.all([good?.close(), broken?.close(), site?.close()]);
  });

  it("registers an endpoint and returns its secret once", async () => {
    const r = await s.call("POST", "/webhooks", { key, json: { url: good.url, events: ["document.indexed", "document.failed", "crawl.completed"], description: "app" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ url: good.url, status: "enabled", collection_id: null, disabled_reason: null });
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    endpoint = r.body;
    const list = await s.call("GET", "/webhooks", { key });
    expect(list.body.map((e: any) => e.id)).toEqual([endpoint.id]);
    expect(list.body[0].secret).toBeUndefined();
    expect((await s.call("GET", `/webhooks/${endpoint.id}`, { key })).body.secret).toBeUndefined();
  });

  it("refuses unknown events, foreign collections and other workspaces' endpoints", async () => {
    const bad = await s.call("POST", "/webhooks", { key, json: { url: good.url, events: ["document.exploded"] } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.detail)).toContain("document.exploded");
    const col = await s.call("POST", "/webhooks", { key, json: { url: good.url, events: ["crawl.completed"], collection_id: "col_missing" } });
    expect(col.status).toBe(404);
    const other = (await s.tenant()).adminKey;
    expect((await s.call("GET", `/webhooks/${endpoint.id}`, { key: other })).status).toBe(404);
    expect((await s.call("GET", `/webhooks/${endpoint.id}/deliveries`, { key: other })).status).toBe(404);
    expect((await s.call("DELETE", `/webhooks/${endpoint.id}`, { key: other })).status).toBe(404);
    expect((await s.call("GET", "/webhooks", { key: other })).body).toEqual([]);
  });

  it("signs each delivery as Standard Webhooks says and retries after a 500 with the same webhook-id", async () => {
    const up = await upload(s, key, sourceId, [{ name: "pelicans.txt", content: "Pelicans are fed twice a day at the harbour." }]);
    expect(up.status).toBeLessThan(300);
    const delivered = await until("a delivered document.indexed", async () => {
      const d = (await s.call("GET", `/webhooks/${endpoint.id}/deliveries`, { key })).body;
      return d.find((x: any) => x.event === "document.indexed" && x.status === "delivered");
    });
    expect(delivered).toMatchObject({ attempts: 2, response_status: 200, last_error: null });
    expect(delivered.payload).toMatchObject({ type: "document.indexed", data: { data_source_id: sourceId, status: "indexed" } });
    const attempts = good.got.filter((g) => g.headers["webhook-id"] === delivered.id);
    expect(attempts).toHaveLength(2); // the 500, then the retry
    for (const a of attempts) {
      expect(verify(endpoint.secret, a.headers, a.body)).toBe(true);
      expect(Math.abs(Number(a.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
      expect(JSON.parse(a.body)).toEqual(delivered.payload);
    }
    // a tampered body or another secret does not verify
    expect(verify(endpoint.secret, attempts[1].headers, attempts[1].body.replace("indexed", "failed"))).toBe(false);
    expect(verify("whsec_" + Buffer.alloc(24, 1).toString("base64"), attempts[1].headers, attempts[1].body)).toBe(false);
  });

  it("raises document.failed and crawl.completed with the crawl's counts", async () => {
    await upload(s, key, sourceId, [{ name: "empty.txt", content: "   " }]);
    const crawl = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/`, collection_id: collectionId } });
    expect(crawl.status).toBe(202);
    await waitCrawl(s, key, crawl.body.id);
    const events = await until("document.failed and crawl.completed", () => {
      const types = good.got.map((g) => JSON.parse(g.body));
      const failed = types.find((e) => e.type === "document.failed");
      const done = types.find((e) => e.type === "crawl.completed");
      return failed && done ? { failed, done } : undefined;
    });
    expect(events.failed.data).toMatchObject({ status: "failed", data_source_id: sourceId });
    expect(events.done.data).toMatchObject({ crawl_id: crawl.body.id, status: "completed", pages_new: 2, pages_crawled: 2 });
  });

  it("redelivers a message with the same webhook-id", async () => {
    const list = (await s.call("GET", `/webhooks/${endpoint.id}/deliveries`, { key })).body;
    const one = list.find((d: any) => d.status === "delivered");
    const before = good.got.length;
    const r = await s.call("POST", `/webhooks/${endpoint.id}/deliveries/${one.id}/redeliver`, { key });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: one.id, status: "pending" });
    const again = await until("the redelivery", () => good.got.slice(before).find((g) => g.headers["webhook-id"] === one.id));
    expect(verify(endpoint.secret, again.headers, again.body)).toBe(true);
    expect((await s.call("POST", `/webhooks/${endpoint.id}/deliveries/msg_missing/redeliver`, { key })).status).toBe(404);
  });

  it("disables an endpoint whose deliveries keep failing, with the reason", async () => {
    const r = await s.call("POST", "/webhooks", { key, json: { url: broken.url, events: ["document.indexed"], collection_id: collectionId } });
    expect(r.status).toBe(201);
    await upload(s, key, sourceId, [{ name: "otters.txt", content: "Otters hold hands while they sleep in the kelp." }]);
    const ep = await until("the endpoint disabled", async () => {
      const e = (await s.call("GET", `/webhooks/${r.body.id}`, { key })).body;
      return e.status === "disabled" ? e : undefined;
    });
    expect(ep.disabled_reason).toMatch(/failed all 3 attempts; the last: The receiver answered HTTP 500/);
    expect(broken.got).toHaveLength(3);
    const log = (await s.call("GET", `/webhooks/${r.body.id}/deliveries`, { key })).body;
    expect(log[0]).toMatchObject({ status: "failed", attempts: 3, response_status: 500 });
  });

  it("raises benchmark.completed and tuning.completed, for endpoints of that collection only", async () => {
    const mine = await s.call("POST", "/webhooks", { key, json: { url: good.url, events: ["benchmark.completed", "tuning.completed"], collection_id: collectionId } });
    const otherCollection = await createCollection(s, key, [], "Other");
    const elsewhere = await receiver();
    const theirs = await s.call("POST", "/webhooks", { key, json: { url: elsewhere.url, events: ["benchmark.completed", "tuning.completed"], collection_id: otherCollection } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    const docs = (await s.call("GET", `/documents?data_source_id=${sourceId}`, { key })).body;
    const pelicans = docs.find((d: any) => d.source === "pelicans.txt").id;
    const suite = await s.call("POST", "/benchmarks", { key, json: { name: "Birds", collection_id: collectionId, cases: ["when are pelicans fed", "pelican feeding", "harbour birds", "fed twice a day", "pelicans"].map((query) => ({ query, relevant_document_ids: [pelicans] })) } });
    expect(suite.status).toBe(201);
    const run = await s.call("POST", `/benchmarks/${suite.body.id}/run`, { key });
    const tuning = await s.call("POST", `/benchmarks/${suite.body.id}/tune`, { key, json: { background: true, apply: false } });
    expect(tuning.status).toBe(202);
    const events = await until("benchmark.completed and tuning.completed", () => {
      const mineGot = good.got.filter((g) => g.headers["webhook-id"] && JSON.parse(g.body).type.match(/^(benchmark|tuning)\./));
      const bench = mineGot.find((g) => JSON.parse(g.body).type === "benchmark.completed");
      const tune = mineGot.find((g) => JSON.parse(g.body).type === "tuning.completed");
      return bench && tune ? { bench, tune } : undefined;
    });
    expect(verify(mine.body.secret, events.bench.headers, events.bench.body)).toBe(true);
    expect(JSON.parse(events.bench.body).data).toMatchObject({ benchmark_id: suite.body.id, run_id: run.body.id, collection_id: collectionId, status: "completed", query_count: 5 });
    expect(JSON.parse(events.bench.body).data.metrics).toBeTypeOf("object");
    const ended = (await s.call("GET", `/benchmarks/${suite.body.id}/tunings/${tuning.body.id}`, { key })).body;
    expect(JSON.parse(events.tune.body).data).toMatchObject({ tuning_id: tuning.body.id, benchmark_id: suite.body.id, collection_id: collectionId, status: ended.status, applied: false });
    // the endpoint of another collection heard nothing of them
    const log = (await s.call("GET", `/webhooks/${theirs.body.id}/deliveries`, { key })).body;
    expect(log).toEqual([]);
    expect(elsewhere.got).toEqual([]);
    await elsewhere.close();
  });

  it("raises adaptation.completed when an adaptation job ends, with why when it failed", async () => {
    const got = await receiver();
    const ep = await s.call("POST", "/webhooks", { key, json: { url: got.url, events: ["adaptation.completed"], collection_id: collectionId } });
    expect(ep.status).toBe(201);
    // this collection has a few short pages: too few heading pairs, so the job fails and says why
    const job = await s.call("POST", `/collections/${collectionId}/adapt`, { key, json: { background: true } });
    expect(job.status).toBe(202);
    const event = await until("adaptation.completed", () => got.got.find((g) => JSON.parse(g.body).type === "adaptation.completed"));
    expect(verify(ep.body.secret, event.headers, event.body)).toBe(true);
    const ended = (await s.call("GET", `/collections/${collectionId}/adaptations/${job.body.id}`, { key })).body;
    expect(ended.status).toBe("failed");
    expect(JSON.parse(event.body).data).toEqual({
      adaptation_id: job.body.id,
      collection_id: collectionId,
      trigger: "request",
      kind: "queries",
      status: "failed",
      applied: false,
      error: ended.error,
    });
    expect(ended.error).toMatch(/at least 40/);
    await got.close();
  });

  it("DELETE removes the endpoint", async () => {
    expect((await s.call("DELETE", `/webhooks/${endpoint.id}`, { key })).status).toBe(204);
    expect((await s.call("GET", `/webhooks/${endpoint.id}`, { key })).status).toBe(404);
  });
});
