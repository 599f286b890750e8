// /openapi.json as a document to generate clients from: valid OpenAPI 3.1 (checked by
// @seriousme/openapi-schema-validator with the official schemas), an operationId, summary,
// response descriptions and examples on every operation, each example valid against its schema;
// servers, the X-Tenant-Id header, both security schemes, tag order; Swagger UI for Quarry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { startServer, type TestServer } from "../kit/index.js";
import { OPERATIONS } from "../../src/http/openapi/operations.js";

type Obj = Record<string, any>;
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats: AddFormats = (addFormatsModule as any).default ?? (addFormatsModule as any);

let s: TestServer;
let doc: Obj;
const ops: { key: string; op: Obj }[] = [];

beforeAll(async () => {
  s = await startServer({ PUBLIC_URL: "https://search.example.com" }, { listen: false });
  const r = await s.call("GET", "/openapi.json");
  expect(r.status).toBe(200);
  doc = r.body;
  for (const [p, item] of Object.entries<Obj>(doc.paths)) {
    for (const [m, op] of Object.entries<Obj>(item)) ops.push({ key: `${m.toUpperCase()} ${p}`, op });
  }
});
afterAll(async () => {
  await s?.close();
});

/** Validates examples against the document's own schemas, $refs resolved inside the document. */
function exampleValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  ajv.addSchema({ $id: "https://quarry.test/openapi.json", $defs: {}, components: doc.components } as Obj);
  const rebase = (schema: Obj): Obj => JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"https://quarry.test/openapi.json#/components/'));
  return (schema: Obj, example: unknown): string | null => {
    const validate = ajv.compile(rebase(schema));
    return validate(example) ? null : ajv.errorsText(validate.errors);
  };
}

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("gives every operation a unique stable operationId, a summary, tags and the contract's descriptions", () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key, op } of ops) {
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(String(op.summary ?? "").length, `${key} summary`).toBeGreaterThan(5);
      expect(op.tags?.length, `${key} tags`).toBeGreaterThan(0);
    }
    // the operationIds generated clients depend on
    const byKey = Object.fromEntries(ops.map((o) => [o.key, o.op.operationId]));
    expect(byKey["POST /search"]).toBe("search");
    expect(byKey["POST /retrieve"]).toBe("retrieve");
    expect(byKey["POST /collections"]).toBe("createCollection");
    expect(byKey["POST /documents/upload"]).toBe("uploadDocuments");
    const missing = ops.filter((o) => !OPERATIONS[o.key]).map((o) => o.key);
    expect(missing, "routes without an entry in src/http/openapi/operations.ts").toEqual([]);
    expect(doc.paths["/retrieve"].post.description).toContain("max_tokens");
  });

  it("describes every response by what it means, never 'Default Response'", () => {
    for (const { key, op } of ops) {
      for (const [status, res] of Object.entries<Obj>(op.responses)) {
        expect(res.description, `${key} ${status}`).not.toMatch(/Default Response|Every error except/);
        expect(String(res.description).length, `${key} ${status}`).toBeGreaterThan(10);
      }
    }
    expect(doc.paths["/search"].post.responses["429"].description).toMatch(/plan limit/);
  });

  it("has request and response examples everywhere, each valid against its schema", () => {
    const check = exampleValidator();
    const problems: string[] = [];
    let checked = 0;
    const visit = (where: string, media: Obj) => {
      if (!media.schema) return;
      // one `example`, or named `examples` (a body with several shapes), each checked
      const examples = media.examples ? Object.entries<Obj>(media.examples).map(([name, e]) => [`${where} (${name})`, e.value] as const) : [[where, media.example] as const];
      for (const [at, example] of examples) {
        if (example === undefined) {
          problems.push(`${at}: no example`);
          continue;
        }
        const error = check(media.schema, example);
        if (error) problems.push(`${at}: ${error}`);
        checked++;
      }
    };
    for (const { key, op } of ops) {
      for (const [type, media] of Object.entries<Obj>(op.requestBody?.content ?? {})) visit(`${key} request ${type}`, media);
      for (const [status, res] of Object.entries<Obj>(op.responses)) {
        for (const [type, media] of Object.entries<Obj>(res.content ?? {})) visit(`${key} ${status} ${type}`, media);
      }
      for (const p of op.parameters ?? []) {
        if (p.$ref || p.in !== "path") continue;
        if (p.example === undefined) problems.push(`${key} parameter ${p.name}: no example`);
        else if (check(p.schema, p.example)) problems.push(`${key} parameter ${p.name}: ${check(p.schema, p.example)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(150);
  });

  it("catches an invalid example (the check is not vacuous)", () => {
    const check = exampleValidator();
    expect(check({ $ref: "#/components/schemas/SearchRequest" }, { collection_id: "c", query: "" })).toMatch(/query/);
    expect(check({ $ref: "#/components/schemas/CollectionOut" }, { id: "c" })).toMatch(/required/);
  });

  it("names the servers, documents X-Tenant-Id and both security schemes, and orders the tags", () => {
    expect(doc.servers).toEqual([{ url: "https://search.example.com", description: expect.any(String) }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["bearer", "session"]);
    expect(doc.components.parameters.TenantId).toMatchObject({ name: "X-Tenant-Id", in: "header", required: false });
    const search = doc.paths["/search"].post;
    expect(search.parameters).toEqual(expect.arrayContaining([{ $ref: "#/components/parameters/TenantId" }]));
    expect(search.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(doc.paths["/health"].get.parameters ?? []).not.toEqual(expect.arrayContaining([{ $ref: "#/components/parameters/TenantId" }]));
    const tagNames = doc.tags.map((t: Obj) => t.name);
    expect(tagNames.slice(0, 2)).toEqual(["search", "collections"]);
    const used = new Set(ops.flatMap((o) => o.op.tags));
    for (const t of used) expect(tagNames, `tag ${t} declared`).toContain(t);
  });
});

describe("Swagger UI", () => {
  it("is titled for Quarry and loads /openapi.json", async () => {
    const page = await s.call("GET", "/docs/");
    expect(page.body).toContain("<title>Quarry API — Swagger UI</title>");
    const init = (await s.call("GET", "/docs/static/swagger-initializer.js")).body;
    expect(init).toContain('"url":"/openapi.json"');
  });
});
