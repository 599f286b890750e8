// Shared bits of the foundation suites: typed shortcuts over the real-HTTP test server and the
// checks every error answer must pass (raw SQL on the server's database: helpers/store-sql.ts).
import http from "node:http";
import { expect } from "vitest";
import { PLATFORM_KEY, type TestServer } from "../helpers/server.js";

export { PLATFORM_KEY };

export type Res = Awaited<ReturnType<TestServer["call"]>>;

/** {"detail": "<non-empty sentence>"}: the shape of every error except 422. */
export function expectDetail(r: Res, status: number, ...mentions: (string | RegExp)[]): string {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expect(r.body).toBeTypeOf("object");
  expect(Object.keys(r.body)).toEqual(["detail"]);
  expect(r.body.detail).toBeTypeOf("string");
  expect(r.body.detail.length).toBeGreaterThan(10);
  for (const m of mentions) {
    if (typeof m === "string") expect(r.body.detail).toContain(m);
    else expect(r.body.detail).toMatch(m);
  }
  return r.body.detail;
}

export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/** FastAPI's 422: {"detail":[{type, loc, msg, input}]}, every item well-formed. */
export function expect422(r: Res): Issue[] {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(["detail"]);
  expect(Array.isArray(r.body.detail)).toBe(true);
  expect(r.body.detail.length).toBeGreaterThan(0);
  for (const item of r.body.detail as Issue[]) {
    expect(Object.keys(item).sort()).toEqual(["input", "loc", "msg", "type"]);
    expect(item.type).toBeTypeOf("string");
    expect(item.msg).toBeTypeOf("string");
    expect(item.msg.length).toBeGreaterThan(0);
    expect(Array.isArray(item.loc)).toBe(true);
    expect(["body", "query", "path", "header"]).toContain(item.loc[0]);
  }
  return r.body.detail;
}

/** The 422 item whose loc is exactly `loc` (fails the test when there is none). */
export function issueAt(r: Res, ...loc: (string | number)[]): Issue {
  const issues = expect422(r);
  const hit = issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(loc));
  expect(hit, `no 422 item at ${JSON.stringify(loc)} in ${JSON.stringify(issues)}`).toBeDefined();
  return hit!;
}

/** A raw request through node:http, for what fetch refuses to send (huge headers, odd methods). */
export function rawRequest(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(url + opts.path, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", (e) => resolve({ error: e.message }));
    });
    req.on("error", (e) => resolve({ error: e.message }));
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A fresh API key of the given scopes in the tenant of `adminKey`. */
export async function makeKey(
  s: TestServer,
  adminKey: string,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string; body: any }> {
  const r = await s.call("POST", "/api-keys", { key: adminKey, json: { name: `${scopes.join("+")} key`, scopes, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, key: r.body.key, body: r.body };
}

export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type ContractScope = "search" | "ingest" | "admin" | "platform" | "none" | "session";

/**
 * Every endpoint of the contract (spec/search-service-api.md, "Endpoints"), with the minimum
 * scope from its tables, DESIGN.md section 5 where the contract says "not shown" (tenants:
 * platform; embedding-profiles and resend-verification: search; delete workspace: admin),
 * and the success status. `none` needs no credentials; `session` is the logout cookie.
 */
export const CONTRACT_ENDPOINTS: [method: string, path: string, scope: ContractScope, status: number][] = [
  ["GET", "/health", "none", 200],
  ["GET", "/me", "search", 200],
  ["GET", "/capabilities", "search", 200],
  ["GET", "/embedding-profile", "search", 200],
  ["GET", "/embedding-profiles", "search", 200],
  ["GET", "/openai-tools.json", "search", 200],
  ["POST", "/search", "search", 200],
  ["POST", "/retrieve", "search", 200],
  ["GET", "/collections", "search", 200],
  ["POST", "/collections", "ingest", 201],
  ["GET", "/collections/{collection_id}", "search", 200],
  ["PATCH", "/collections/{collection_id}", "ingest", 200],
  ["DELETE", "/collections/{collection_id}", "ingest", 204],
  ["PUT", "/collections/{collection_id}/data-sources/{data_source_id}", "ingest", 200],
  ["DELETE", "/collections/{collection_id}/data-sources/{data_source_id}", "ingest", 204],
  ["GET", "/data-sources", "search", 200],
  ["POST", "/data-sources", "ingest", 201],
  ["GET", "/data-sources/{data_source_id}", "search", 200],
  ["DELETE", "/data-sources/{data_source_id}", "ingest", 204],
  ["POST", "/data-sources/{data_source_id}/reindex", "ingest", 202],
  ["POST", "/reindex", "ingest", 202],
  ["GET", "/documents", "search", 200],
  ["POST", "/documents/upload", "ingest", 202],
  ["GET", "/documents/{document_id}", "search", 200],
  ["GET", "/documents/{document_id}/chunks", "search", 200],
  ["DELETE", "/documents/{document_id}", "ingest", 204],
  ["POST", "/crawl/check", "ingest", 200],
  ["POST", "/crawl", "ingest", 202],
  ["GET", "/crawl", "search", 200],
  ["GET", "/crawl/{job_id}", "search", 200],
  ["POST", "/crawl/{job_id}/cancel", "ingest", 200],
  ["POST", "/crawl/{job_id}/retry", "ingest", 202],
  ["POST", "/benchmarks", "ingest", 201],
  ["GET", "/benchmarks", "search", 200],
  ["GET", "/benchmarks/{suite_id}", "search", 200],
  ["POST", "/benchmarks/{suite_id}/run", "ingest", 200],
  ["DELETE", "/benchmarks/{suite_id}", "ingest", 204],
  ["GET", "/industry-benchmarks", "search", 200],
  ["GET", "/api-keys", "admin", 200],
  ["POST", "/api-keys", "admin", 201],
  ["DELETE", "/api-keys/{key_id}", "admin", 204],
  ["GET", "/tenants", "platform", 200],
  ["POST", "/tenants", "platform", 201],
  ["POST", "/auth/signup", "none", 201],
  ["POST", "/auth/login", "none", 200],
  ["POST", "/auth/logout", "session", 204],
  ["POST", "/auth/verify", "none", 200],
  ["POST", "/auth/resend-verification", "search", 202],
  ["POST", "/auth/forgot-password", "none", 202],
  ["POST", "/auth/reset-password", "none", 200],
  ["DELETE", "/auth/workspace", "admin", 204],
];

/** A concrete URL for a contract path: every {param} becomes a made-up id. */
export const concrete = (p: string) => p.replace(/\{(\w+)\}/g, (_m, name: string) => `${name.replace(/_id$/, "")}_nope`);

/**
 * Server settings for suites that never embed: an ONNX profile whose model is absent (MODELS_DIR
 * defaults to the empty DATA_DIR/models, downloads off), so the server starts in about a second
 * instead of loading the default model in worker threads. The service runs "degraded" (lexical
 * search), which is exactly the state the foundation rules must hold in too.
 */
export const LIGHT_ENV: Record<string, string> = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false" };
