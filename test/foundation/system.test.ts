// Identity and system endpoints over HTTP (inject): /health, /me, /capabilities, the embedding
// profiles, /openai-tools.json, /openapi.json (complete against the contract) and /docs.
import { beforeAll, describe, expect, it } from "vitest";
import { ISO_DATE_TIME, LIGHT_ENV, PLATFORM_KEY, expectDetail, makeKey, startServer, useServer, useTenant } from "../kit/index.js";
import { CONTRACT_ENDPOINTS } from "./helpers.js";

// the default deployment (default embedding profile), so the profile endpoints show what users get
const s = useServer();
const t = useTenant(s, "System Tenant");

const REQUIRED_CHECKS = ["database", "queue", "index"];

function expectHealthContract(r: { status: number; body: any }) {
  expect(r.body).toMatchObject({ status: expect.any(String), version: "0.2.0", checks: expect.any(Object) });
  for (const name of REQUIRED_CHECKS) {
    const c = r.body.checks[name];
    expect(c, `check ${name}`).toBeDefined();
    expect(["up", "down", "degraded"]).toContain(c.status);
    expect(c.detail === null || typeof c.detail === "string").toBe(true);
    if (c.status !== "up") expect(c.detail, `a ${name} that is not up says why`).toBeTypeOf("string");
  }
  const allUp = [...REQUIRED_CHECKS, ...(r.body.checks.api ? ["api"] : [])].every((n) => r.body.checks[n].status === "up");
  // 200 only when every required dependency is up, 503 otherwise; a model that is not up: "degraded"
  expect(r.status).toBe(allUp ? 200 : 503);
  const everythingUp = Object.values(r.body.checks).every((c: any) => c.status === "up");
  expect(r.body.status).toBe(!allUp ? "down" : everythingUp ? "ok" : "degraded");
}

describe("GET /health", () => {
  it("needs no credentials and reports database, queue and index separately; 200 iff all are up", async () => {
    const r = await s.call("GET", "/health");
    expectHealthContract(r);
    expect(r.body.checks.database.status).toBe("up");
  });

  it("ignores credentials, even bad ones", async () => {
    expectHealthContract(await s.call("GET", "/health", { key: "qk_garbage" }));
    expectHealthContract(await s.call("GET", "/health", { headers: { authorization: "Basic Zm9vOmJhcg==" } }));
  });

  it("reports a missing model without failing health, and a database that is down with 503", async () => {
    const other = await startServer(LIGHT_ENV, { listen: false });
    try {
      // no model files for the active profile: said so, but search still answers lexically
      await other.rt.embedder?.whenReady();
      const degraded = await other.call("GET", "/health");
      expectHealthContract(degraded);
      const model = degraded.body.checks.model;
      expect(model, "the model is reported").toBeDefined();
      expect(model.status).not.toBe("up");
      expect(model.detail).toMatch(/MODELS_DIR|download/i);

      await other.rt.store.close();
      const r = await other.call("GET", "/health");
      expectHealthContract(r);
      expect(r.status).toBe(503);
      expect(r.body.checks.database.status).toBe("down");
      // other requests fail cleanly too
      const me = await other.call("GET", "/me", { key: PLATFORM_KEY });
      expect(me.status).toBeGreaterThanOrEqual(400);
      expect(me.body.detail).toBeTypeOf("string");
    } finally {
      await other.close();
    }
  });
});

describe("GET /me", () => {
  it("answers MeOut with the key, plan and a usage record for the current UTC month", async () => {
    const k = await makeKey(s, t.adminKey, ["search"]);
    const r = await s.call("GET", "/me", { key: k.key });
    expect(r.status).toBe(200);
    const me = r.body;
    expect(me.tenant).toEqual({ id: t.id, name: "System Tenant", slug: t.slug, created_at: expect.stringMatching(ISO_DATE_TIME) });
    expect(me.scopes).toEqual(["search"]);
    expect(me.key).toMatchObject({ id: k.id, prefix: k.body.prefix, scopes: ["search"], status: "active" });
    expect(me.key.key).toBeUndefined();
    expect(me.user).toBeNull();
    expect(me.role).toBeNull();
    expect(me.plan).toBe("free");
    expect(me.auth_method).toBe("api_key");

    const u = me.usage;
    expect(u.period).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
    expect(u.period).toBe(new Date().toISOString().slice(0, 7));
    for (const f of ["sources_used", "documents_used", "queries_used"]) {
      expect(Number.isInteger(u[f]), f).toBe(true);
      expect(u[f]).toBe(0);
    }
    // free plan (DESIGN.md section 5): 5 sources, 1,000 documents, 5,000 queries a month
    expect(u).toMatchObject({ sources_limit: 5, documents_limit: 1000, queries_limit: 5000 });
  });

  it("reports null limits for an unlimited plan", async () => {
    const tt = await s.tenant("Enterprise Tenant");
    const set = await s.call("PUT", `/tenants/${tt.id}/plan`, { key: PLATFORM_KEY, json: { plan: "enterprise" } });
    expect(set.status).toBe(200);
    const me = await s.call("GET", "/me", { key: tt.adminKey });
    expect(me.body.plan).toBe("enterprise");
    expect(me.body.usage).toMatchObject({ sources_limit: null, documents_limit: null, queries_limit: null });
  });

  it("needs credentials", async () => {
    expectDetail(await s.call("GET", "/me"), 401);
  });
});

describe("GET /capabilities", () => {
  it("describes connectors, JavaScript rendering, limits, file types and the active profile", async () => {
    const r = await s.call("GET", "/capabilities", { key: t.adminKey });
    expect(r.status).toBe(200);
    const c = r.body;
    expect(c.connectors).toEqual(expect.arrayContaining(["upload", "website"]));
    expect(c.render_js).toBeTypeOf("boolean");
    expect(c.max_upload_bytes).toBe(50 * 1024 * 1024);
    expect(Number.isInteger(c.page_size_limit_bytes) && c.page_size_limit_bytes > 0).toBe(true);
    expect(c.max_page_limit).toBe(20000);
    expect(Array.isArray(c.file_types)).toBe(true);
    const active = await s.call("GET", "/embedding-profile", { key: t.adminKey });
    expect(c.embedding_profile).toBe(active.body.name);
    // the model and its own version, so an operator can tell which model answers
    expect(c.embedding_model).toBe(active.body.model);
    expect(c.embedding_model_version).toMatch(/\d/);
  });
});

describe("embedding profiles", () => {
  const STRINGS = ["name", "provider", "model", "query_prefix", "passage_prefix", "description"];
  const INTEGERS = ["dimension", "max_input_tokens", "chunk_size_tokens", "chunk_overlap_tokens"];
  function expectProfile(p: any) {
    for (const f of STRINGS) expect(p[f], f).toBeTypeOf("string");
    for (const f of INTEGERS) expect(Number.isInteger(p[f]) && p[f] >= 0, f).toBe(true);
    expect(p.dimension).toBeGreaterThan(0);
    expect(p.chunk_overlap_tokens).toBeLessThan(p.chunk_size_tokens);
    expect(Array.isArray(p.modalities) && p.modalities.every((m: unknown) => typeof m === "string")).toBe(true);
    expect(p.active).toBeTypeOf("boolean");
    expect(p.index_name === null || typeof p.index_name === "string").toBe(true);
  }

  it("GET /embedding-profile answers the active EmbeddingProfileOut", async () => {
    const r = await s.call("GET", "/embedding-profile", { key: t.adminKey });
    expect(r.status).toBe(200);
    expectProfile(r.body);
    expect(r.body.active).toBe(true);
  });

  it("GET /embedding-profiles lists every profile, exactly one active (the same one)", async () => {
    const search = await makeKey(s, t.adminKey, ["search"]);
    const r = await s.call("GET", "/embedding-profiles", { key: search.key });
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThanOrEqual(1);
    r.body.forEach(expectProfile);
    const active = r.body.filter((p: { active: boolean }) => p.active);
    expect(active).toHaveLength(1);
    expect(new Set(r.body.map((p: { name: string }) => p.name)).size).toBe(r.body.length);
    const one = await s.call("GET", "/embedding-profile", { key: search.key });
    expect(active[0].name).toBe(one.body.name);
    expect(active[0].dimension).toBe(one.body.dimension);
  });

  it("needs credentials", async () => {
    expectDetail(await s.call("GET", "/embedding-profiles"), 401);
    expectDetail(await s.call("GET", "/embedding-profile"), 401);
  });
});

describe("GET /openai-tools.json", () => {
  it("lists function-calling tools for search and retrieve", async () => {
    const r = await s.call("GET", "/openai-tools.json", { key: t.adminKey });
    expect(r.status).toBe(200);
    const names = r.body.map((x: any) => x.function?.name);
    expect(names).toEqual(expect.arrayContaining(["search", "retrieve"]));
    for (const tool of r.body) {
      expect(tool.type).toBe("function");
      expect(tool.function.parameters.type).toBe("object");
      if (["search", "retrieve"].includes(tool.function.name)) {
        expect(tool.function.parameters.required).toEqual(expect.arrayContaining(["collection_id", "query"]));
      }
    }
  });
});

describe("GET /openapi.json", () => {
  let doc: any;
  beforeAll(async () => {
    const r = await s.call("GET", "/openapi.json");
    expect(r.status).toBe(200);
    doc = r.body;
  });

  it("is an OpenAPI 3 document of interface version 0.2.0, served without credentials", () => {
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.version).toBe("0.2.0");
    expect(doc.info.title).toBeTypeOf("string");
  });

  it("lists every path and method of the contract with its scope and success status", () => {
    const missing: string[] = [];
    for (const [method, p, scope, status] of CONTRACT_ENDPOINTS) {
      const op = doc.paths?.[p]?.[method.toLowerCase()];
      if (!op) {
        missing.push(`${method} ${p}`);
        continue;
      }
      const label = `${method} ${p}`;
      expect(Object.keys(op.responses ?? {}), label).toContain(String(status));
      if (scope === "none") {
        expect(op["x-required-scope"], label).toBeUndefined();
        expect(op.security, label).toEqual([]);
      } else if (scope !== "session") {
        expect(op["x-required-scope"], label).toBe(scope);
        expect(op.security, label).toEqual(expect.arrayContaining([{ bearer: [] }]));
        expect(String(op.description ?? ""), label).toContain(scope);
      }
      const pathParams = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((x: any) => x.in === "path").map((x: any) => x.name);
      expect(declared.sort(), label).toEqual(pathParams.sort());
    }
    expect(missing).toEqual([]);
  });

  it("documents each JSON request body with the contract's schema", () => {
    const bodies: [string, string, string][] = [
      ["post", "/tenants", "TenantCreate"],
      ["post", "/api-keys", "ApiKeyCreate"],
      ["post", "/search", "SearchRequest"],
      ["post", "/retrieve", "RetrieveRequest"],
      ["post", "/collections", "CollectionCreate"],
      ["patch", "/collections/{collection_id}", "CollectionUpdate"],
      ["post", "/data-sources", "DataSourceCreate"],
      ["post", "/crawl/check", "SiteCheckRequest"],
      ["post", "/crawl", "CrawlCreate"],
      ["post", "/benchmarks", "BenchmarkSuiteCreate"],
      ["post", "/auth/signup", "SignupRequest"],
      ["post", "/auth/login", "LoginRequest"],
      ["post", "/auth/forgot-password", "ForgotPasswordRequest"],
      ["post", "/auth/reset-password", "ResetPasswordRequest"],
      ["delete", "/auth/workspace", "DeleteWorkspaceRequest"],
    ];
    for (const [method, p, name] of bodies) {
      const schema = doc.paths[p][method].requestBody?.content?.["application/json"]?.schema;
      expect(schema?.$ref, `${method} ${p}`).toBe(`#/components/schemas/${name}`);
    }
  });

  it("documents the upload as multipart/form-data with data_source_id and files", () => {
    const content = doc.paths["/documents/upload"].post.requestBody?.content ?? {};
    expect(Object.keys(content)).toContain("multipart/form-data");
  });

  it("documents successful answers with the contract's schemas", () => {
    const ok = (method: string, p: string, status: number) => doc.paths[p][method].responses[String(status)]?.content?.["application/json"]?.schema;
    expect(ok("get", "/me", 200).$ref).toBe("#/components/schemas/MeOut");
    expect(ok("post", "/tenants", 201).$ref).toBe("#/components/schemas/TenantCreated");
    expect(ok("post", "/api-keys", 201).$ref).toBe("#/components/schemas/ApiKeyCreated");
    expect(ok("get", "/api-keys", 200).items.$ref).toBe("#/components/schemas/ApiKeyOut");
    expect(ok("get", "/tenants", 200).items.$ref).toBe("#/components/schemas/Tenant");
    expect(ok("get", "/embedding-profile", 200).$ref).toBe("#/components/schemas/EmbeddingProfileOut");
    expect(ok("post", "/search", 200).$ref).toBe("#/components/schemas/SearchResponse");
    expect(ok("post", "/retrieve", 200).$ref).toBe("#/components/schemas/RetrieveResponse");
    expect(ok("post", "/api-keys", 422).$ref).toBe("#/components/schemas/HTTPValidationError");
  });

  it("carries the same constraints that validate requests (TenantCreate, ApiKeyCreate)", () => {
    const tc = doc.components.schemas.TenantCreate;
    expect(tc.required).toEqual(["name"]);
    expect(tc.additionalProperties).toBe(false);
    expect(tc.properties.name).toMatchObject({ type: "string", minLength: 1, maxLength: 200 });
    expect(tc.properties.slug).toMatchObject({ maxLength: 80, pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" });
    expect(tc.properties.admin_key_name).toMatchObject({ minLength: 1, maxLength: 120, default: "Admin key" });
    const kc = doc.components.schemas.ApiKeyCreate;
    expect(kc.properties.scopes).toMatchObject({ type: "array", minItems: 1, maxItems: 4 });
    expect(kc.properties.expires_in_days).toMatchObject({ minimum: 1, maximum: 3650 });
    expect(kc.properties.name).toMatchObject({ minLength: 1, maxLength: 120 });
  });

  it("has every named schema of the contract in components", () => {
    const names = [
      "Tenant", "TenantCreate", "TenantCreated", "ApiKeyOut", "ApiKeyCreated", "ApiKeyCreate", "MeOut", "UsageOut",
      "User", "AccountOut", "SignupRequest", "LoginRequest", "ForgotPasswordRequest", "ResetPasswordRequest",
      "DeleteWorkspaceRequest", "CollectionOut", "CollectionCreate", "CollectionUpdate", "DataSourceOut",
      "DataSourceCreate", "DocumentOut", "CrawlOut", "CrawlCreate", "SiteCheckRequest", "SiteCheckOut", "SiteCheckItem",
      "SearchRequest", "SearchResponse", "SearchHit", "RetrieveRequest", "RetrieveResponse", "RetrievedContext",
      "RetrievedDocument", "EmbeddingProfileOut", "BenchmarkSuiteCreate", "BenchmarkCaseCreate", "BenchmarkCaseOut",
      "BenchmarkSuiteOut", "BenchmarkRunOut", "HTTPValidationError",
    ];
    expect(names.filter((n) => !doc.components.schemas[n])).toEqual([]);
  });
});

describe("GET /docs", () => {
  it("answers a readable HTML page without credentials", async () => {
    const res = await s.call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html: string = res.body;
    expect(html).toMatch(/<html/i);
    expect(html.length).toBeGreaterThan(200);
    // the page's own scripts and styles load, and it reads the same document as /openapi.json
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const a of assets) {
      expect((await s.call("GET", a)).status, a).toBe(200);
    }
    const spec = (await s.call("GET", "/docs/json")).body;
    expect(spec.info.version).toBe("0.2.0");
    expect(Object.keys(spec.paths).sort()).toEqual(Object.keys((await s.call("GET", "/openapi.json")).body.paths).sort());
  });
});
