// The isolation matrix: tenant B calls every operation that names a resource with tenant A's ids
// (in the path, and in bodies that refer to ids). Every call must answer as if the resource did
// not exist (404), or refuse the scope (403 for operator routes), and A's resources must be intact.
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { noModelEnv, startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { html, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { operations, sample } from "./corpus.js";

let s: TestServer;
let site: FixtureServer;
let a: { id: string; adminKey: string };
let b: { id: string; adminKey: string };
const ids: Record<string, string> = {};

beforeAll(async () => {
  s = await startServer({
    ...noModelEnv(),
    CRAWL_ALLOW_PRIVATE_NETWORKS: "true",
    CRAWL_RENDER_JS: "false",
    DEFAULT_PLAN: "enterprise",
  });
  site = await serve((req, res) => send(req, res, { body: html("Home", "<p>A page of tenant A.</p>") }));
  a = await s.tenant("Tenant A");
  b = await s.tenant("Tenant B");
  const src = await createSource(s, a.adminKey);
  const col = await createCollection(s, a.adminKey, [src]);
  await upload(s, a.adminKey, src, [{ name: "secret.md", content: "# Secret\n\nTenant A's plans.", type: "text/markdown" }]);
  const [doc] = await waitIndexed(s, a.adminKey, src);
  // a webhook endpoint of A, with a delivery (the crawl's crawl.completed) to name
  const hook = await s.call("POST", "/webhooks", { key: a.adminKey, json: { url: `${site.base}/hook`, events: ["crawl.completed"], collection_id: col } });
  const crawl = await s.call("POST", "/crawl", { key: a.adminKey, json: { url: `${site.base}/`, collection_id: col, page_limit: 1 } });
  const suite = await s.call("POST", "/benchmarks", {
    key: a.adminKey,
    // five cases: the fewest a tuning takes
    json: { name: "A's suite", collection_id: col, cases: ["plans", "A's plans", "secret", "secret plans", "tenant"].map((query) => ({ query, relevant_document_ids: [doc.id] })) },
  });
  const tuning = await s.call("POST", `/benchmarks/${suite.body.id}/tune`, { key: a.adminKey, json: { background: true } });
  const key = await s.call("POST", "/api-keys", { key: a.adminKey, json: { name: "A's reader", scopes: ["search"] } });
  const delivery = await waitFor(async () => (await s.call("GET", `/webhooks/${hook.body.id}/deliveries`, { key: a.adminKey })).body[0]?.id);
  const search = await s.call("POST", "/search", { key: a.adminKey, json: { collection_id: col, query: "plans" } });
  Object.assign(ids, {
    webhook_id: hook.body.id,
    delivery_id: delivery,
    data_source_id: src,
    collection_id: col,
    document_id: doc.id,
    job_id: crawl.body.id,
    suite_id: suite.body.id,
    tuning_id: tuning.body.id,
    key_id: key.body.id,
    search_id: search.body.search_id,
    tenant_id: a.id,
    name: "scifact",
  });
  for (const [k, v] of Object.entries(ids)) if (!v) throw new Error(`setup did not produce ${k}`);
});
async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  await s?.close();
  await site?.close();
});

/** A body for the operation that refers to A's ids wherever a field names one. */
function bodyWithForeignIds(schema: Record<string, any> | null): unknown {
  if (!schema) return undefined;
  const body = (sample(schema) ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schema.properties ?? {})) {
    if (ids[name]) body[name] = ids[name];
    const single = name.replace(/s$/, "").replace(/_ids$/, "_id");
    if (name.endsWith("_ids") && ids[single]) body[name] = [ids[single]];
  }
  if ("cases" in body) body.cases = [{ query: "plans", relevant_document_ids: [ids.document_id] }];
  return body;
}

it("tenant B gets 404 (or 403 on operator routes) for every operation on tenant A's resources", async () => {
  const doc = (await s.call("GET", "/openapi.json")).body;
  const refersToIds = (op: { path: string; body: Record<string, any> | null }) =>
    op.path.includes("{") || Object.keys(op.body?.properties ?? {}).some((k) => k.endsWith("_id") || k.endsWith("_ids"));
  const matrix = operations(doc).filter((op) => refersToIds(op) && op.scope !== null && op.path !== "/industry-benchmarks/{name}/import");
  expect(matrix.length).toBeGreaterThan(20);
  const before = (await s.call("GET", `/collections/${ids.collection_id}`, { key: a.adminKey })).body;
  const leaks: string[] = [];
  for (const op of matrix) {
    const p = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name]) + (op.query ? `?${op.query}` : "");
    const body = bodyWithForeignIds(op.body);
    const isForm = op.contentType === "multipart/form-data";
    let init: RequestInit = { method: op.method, headers: { authorization: `Bearer ${b.adminKey}` } };
    if (isForm) {
      const form = new FormData();
      form.append("data_source_id", ids.data_source_id);
      form.append("files", new Blob(["intruder"], { type: "text/plain" }), "intruder.txt");
      init = { ...init, body: form };
    } else if (body !== undefined) {
      init = { ...init, headers: { ...(init.headers as Record<string, string>), "content-type": "application/json" }, body: JSON.stringify(body) };
    }
    const res = await fetch(s.url + p, init);
    const expected = op.scope === "platform" ? 403 : 404;
    if (res.status !== expected) leaks.push(`${op.method} ${op.path}: ${res.status} ${(await res.text()).slice(0, 160)}`);
  }
  // routes that name A's ids in the query string
  for (const p of [`/analytics/queries?collection_id=${ids.collection_id}`, `/analytics/searches?collection_id=${ids.collection_id}`]) {
    const res = await fetch(s.url + p, { headers: { authorization: `Bearer ${b.adminKey}` } });
    if (res.status !== 404) leaks.push(`GET ${p}: ${res.status}`);
  }
  expect(leaks).toEqual([]);

  // A's resources are all still there and unchanged
  const get = (p: string) => s.call("GET", p, { key: a.adminKey });
  const after = (await get(`/collections/${ids.collection_id}`)).body;
  expect({ name: after.name, sources: after.data_source_ids }).toEqual({ name: before.name, sources: before.data_source_ids });
  expect((await get(`/documents/${ids.document_id}`)).body.status).toBe("indexed");
  expect((await get(`/benchmarks/${ids.suite_id}`)).status).toBe(200);
  expect((await get(`/benchmarks/${ids.suite_id}/tunings/${ids.tuning_id}`)).status).toBe(200);
  expect((await get(`/crawl/${ids.job_id}`)).status).toBe(200);
  expect((await get(`/webhooks/${ids.webhook_id}`)).status).toBe(200);
  expect((await get("/api-keys")).body.find((k: { id: string }) => k.id === ids.key_id).status).toBe("active");
  expect((await get(`/documents?data_source_id=${ids.data_source_id}`)).body.map((d: { source: string }) => d.source)).toEqual(["secret.md"]);
});
