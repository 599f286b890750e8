// Bad input generated from the OpenAPI document: every operation gets requests that break its
// schema one way each. Not one may answer 5xx, every error must be JSON with a detail, and the
// server must stay healthy and keep its data. `npm run soak` sends the whole corpus; npm test a
// deterministic sample.
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, PLATFORM_KEY, type TestServer } from "../kit/index.js";
import { badRequestsFor, operations, type BadRequest } from "./corpus.js";
import { FULL, size } from "./soak-env.js";

let s: TestServer;
let key: string;
let tenantId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  // the test kit's model (the static one, ready in well under a second): with no model at all,
  // GET /readyz rightly answers 503, and search requests would never reach the vector path
  s = await startServer({ RATE_LIMIT_PER_MINUTE: "0" });
  const t = await s.tenant("Soak");
  key = t.adminKey;
  tenantId = t.id;
  const src = await s.call("POST", "/data-sources", { key, json: { name: "Soak", source_type: "upload" } });
  const col = await s.call("POST", "/collections", { key, json: { name: "Soak", data_source_ids: [src.body.id] } });
  Object.assign(ids, { data_source_id: src.body.id, collection_id: col.body.id, tenant_id: t.id, name: "scifact" });
});
afterAll(async () => s?.close());

function send(r: BadRequest, scope: string | null) {
  const headers: Record<string, string> = { ...r.headers };
  if (scope === "platform") headers.authorization = `Bearer ${PLATFORM_KEY}`;
  else if (scope) headers.authorization = `Bearer ${key}`;
  const body = r.method === "GET" || r.body === undefined ? undefined : typeof r.body === "string" ? r.body : new Uint8Array(r.body);
  return fetch(s.url + r.path, { method: r.method, headers, body });
}

it(`answers ${FULL ? "the whole" : "a sample of the"} generated bad-input corpus without a 5xx`, async () => {
  const doc = (await s.call("GET", "/openapi.json")).body;
  const all = operations(doc).flatMap((op) => badRequestsFor(op, (p) => ids[p] ?? "zz_missing").map((r) => ({ r, scope: op.scope })));
  const step = Math.max(1, Math.floor(all.length / size(150, all.length)));
  const chosen = all.filter((_, i) => i % step === 0);
  if (FULL) expect(chosen.length).toBeGreaterThanOrEqual(1000);
  const failures: string[] = [];
  for (const { r, scope } of chosen) {
    const res = await send(r, scope);
    const text = await res.text();
    if (res.status >= 500) failures.push(`${res.status} ${r.method} ${r.path.slice(0, 80)} (${r.why}): ${text.slice(0, 200)}`);
    else if (res.status >= 400 && !/^\{"detail":/.test(text)) failures.push(`${res.status} without a JSON detail: ${r.method} ${r.path.slice(0, 80)} (${r.why})`);
  }
  console.log(`bad-input corpus: ${chosen.length} of ${all.length} requests sent, ${failures.length} failures`);
  expect(failures).toEqual([]);

  // healthy, and the tenant's data is intact
  expect((await s.call("GET", "/health")).status).toBe(200);
  const cols = await s.call("GET", "/collections", { key });
  expect(cols.body.map((c: { id: string }) => c.id)).toContain(ids.collection_id);
  expect((await s.call("GET", `/tenants`, { key: PLATFORM_KEY })).body.some((t: { id: string }) => t.id === tenantId)).toBe(true);
}, 600_000);
