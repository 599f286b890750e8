// The error contract over HTTP (inject): every validation failure (body, query, path) is 422 in
// FastAPI's shape with `loc` naming the field; every other error is {"detail": "<sentence>"};
// unknown paths and methods answer JSON.
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, type App } from "../../src/http/app.js";
import { LIGHT_ENV, PLATFORM_KEY, expect422, expectDetail, injectCaller, issueAt, makeKey, useServer, type Call } from "../kit/index.js";

const s = useServer(LIGHT_ENV);
let admin: string;

beforeAll(async () => {
  admin = (await s.tenant("Errors Co")).adminKey;
});

describe("422 for body validation", () => {
  it("names the field in loc, with FastAPI's type, msg and the offending input", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, json: { name: "k", scopes: ["search"], expires_in_days: 9999 } });
    const issues = expect422(r);
    expect(issues).toEqual([
      { type: "less_than_equal", loc: ["body", "expires_in_days"], msg: "Input should be less than or equal to 3650", input: 9999 },
    ]);
  });

  it("reports a missing required field at its own loc", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, json: { scopes: ["search"] } });
    const issue = issueAt(r, "body", "name");
    expect(issue.type).toBe("missing");
    expect(issue.msg).toBe("Field required");
  });

  it("reports every problem of a body at once", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, json: { name: "", scopes: [], expires_in_days: 0, colour: "red" } });
    const locs = expect422(r).map((i) => i.loc.join("."));
    expect(locs.sort()).toEqual(["body.colour", "body.expires_in_days", "body.name", "body.scopes"]);
  });

  it("names nested fields and array items by path (contract schemas of later features validate already)", async () => {
    const search = await s.call("POST", "/search", { key: admin, json: { collection_id: "c", query: "", top_k: 51 } });
    expect(issueAt(search, "body", "query").type).toBe("string_too_short");
    expect(issueAt(search, "body", "top_k").type).toBe("less_than_equal");

    const bench = await s.call("POST", "/benchmarks", {
      key: admin,
      json: { name: "b", collection_id: "c", cases: [{ query: "ok", relevant_document_ids: ["d"] }, { query: "", relevant_document_ids: [] }] },
    });
    expect(issueAt(bench, "body", "cases", 1, "query").type).toBe("string_too_short");
    expect(issueAt(bench, "body", "cases", 1, "relevant_document_ids").type).toBe("too_short");

    const crawl = await s.call("POST", "/crawl", { key: admin, json: { url: "not a url", max_depth: 11, page_limit: 0 } });
    expect(issueAt(crawl, "body", "url").type).toMatch(/url/);
    expect(issueAt(crawl, "body", "max_depth").type).toBe("less_than_equal");
    expect(issueAt(crawl, "body", "page_limit").type).toBe("greater_than_equal");

    const retrieve = await s.call("POST", "/retrieve", { key: admin, json: { collection_id: "c", query: "q", format: "xml", max_tokens: 99 } });
    expect(issueAt(retrieve, "body", "format").type).toBe("string_pattern_mismatch");
    expect(issueAt(retrieve, "body", "max_tokens").type).toBe("greater_than_equal");
  });

  it("does not coerce body types (a number in a string field is an error, not a string)", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, json: { name: 12345, scopes: ["search"] } });
    expect(issueAt(r, "body", "name")).toMatchObject({ type: "string_type", input: 12345 });
    const b = await s.call("POST", "/search", { key: admin, json: { collection_id: "c", query: "q", collapse_documents: "yes" } });
    expect(issueAt(b, "body", "collapse_documents").type).toBe("bool_type");
  });

  it("answers a body that is not an object with a 422 at loc ['body']", async () => {
    for (const body of ["[]", '"text"', "42", "true"]) {
      const r = await s.call("POST", "/api-keys", { key: admin, body, headers: { "content-type": "application/json" } });
      expect(issueAt(r, "body").type).toBe("model_type");
    }
  });

  it("answers malformed JSON and a missing body with 422 at loc ['body']", async () => {
    const bad = await s.call("POST", "/api-keys", { key: admin, body: '{"name": "x",', headers: { "content-type": "application/json" } });
    expect(issueAt(bad, "body").type).toBe("json_invalid");
    const none = await s.call("POST", "/api-keys", { key: admin });
    expect(issueAt(none, "body").type).toBe("missing");
    const empty = await s.call("POST", "/api-keys", { key: admin, body: "", headers: { "content-type": "application/json" } });
    expect(issueAt(empty, "body").type).toBe("missing");
    const nul = await s.call("POST", "/api-keys", { key: admin, body: "null", headers: { "content-type": "application/json" } });
    expect(issueAt(nul, "body").type).toBe("missing");
  });
});

describe("422 for query and path validation", () => {
  it("names query parameters with loc ['query', name]", async () => {
    const r = await s.call("GET", "/documents/doc_x/chunks?limit=many", { key: admin });
    expect(issueAt(r, "query", "limit")).toMatchObject({ type: "int_type", input: "many" });
    const zero = await s.call("GET", "/documents/doc_x/chunks?limit=0", { key: admin });
    expect(issueAt(zero, "query", "limit").type).toBe("greater_than_equal");
  });

  describe("path parameters (a probe route on the real app, since every contract id is a free string)", () => {
    let probe: App;
    let call: Call;
    beforeAll(async () => {
      probe = await buildApp(s.rt);
      probe.get(
        "/__probe/items/:n",
        {
          config: { scope: "search" },
          schema: { params: Type.Object({ n: Type.Integer({ minimum: 1 }) }), querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 3 })) }) },
        },
        async (req) => ({ params: req.params, query: req.query }),
      );
      await probe.ready();
      call = injectCaller(probe);
    });
    afterAll(async () => {
      await probe?.close();
    });
    const get = (p: string) => call("GET", p, { key: admin });

    it("answers 422 with loc ['path', name] and coerces valid text", async () => {
      expect(issueAt(await get("/__probe/items/abc"), "path", "n")).toMatchObject({ type: "int_type", input: "abc" });
      expect(issueAt(await get("/__probe/items/0"), "path", "n").type).toBe("greater_than_equal");
      expect(issueAt(await get("/__probe/items/5?q=toolong"), "query", "q").type).toBe("string_too_long");
      const ok = await get("/__probe/items/5?q=abc");
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ params: { n: 5 }, query: { q: "abc" } });
    });

    it("authenticates before validating the path", async () => {
      const res = await call("GET", "/__probe/items/abc");
      expect(res.status).toBe(401);
      expect(res.body.detail).toBeTypeOf("string");
    });
  });
});

describe('every other error is {"detail": "<sentence>"}', () => {
  it("401, 403, 404, 409 and 400 all carry a single detail string", async () => {
    expectDetail(await s.call("GET", "/api-keys"), 401);
    const search = await makeKey(s, admin, ["search"]);
    expectDetail(await s.call("GET", "/api-keys", { key: search.key }), 403, "admin");
    expectDetail(await s.call("DELETE", "/api-keys/key_nope", { key: admin }), 404);
    await s.call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: "Dup", slug: "dup-slug" } });
    expectDetail(await s.call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: "Dup", slug: "dup-slug" } }), 409);
    expectDetail(await s.call("GET", "/me", { key: PLATFORM_KEY }), 400);
  });

  it("answers unknown paths with a JSON 404 that names the endpoint", async () => {
    for (const p of ["/nope", "/api-keys/a/b/c", "/v1/search", "/%E2%82%AC", "/tenants/"]) {
      const r = await s.call("GET", p, { key: admin });
      expectDetail(r, 404);
    }
    const r = await s.call("GET", "/definitely/not/here?x=1");
    expectDetail(r, 404, "/definitely/not/here");
    expect(r.body.detail).not.toContain("x=1");
  });

  it("answers unknown methods on known paths with JSON (404 or 405), never HTML or an empty body", async () => {
    for (const [method, p] of [
      ["PATCH", "/me"],
      ["PUT", "/api-keys"],
      ["DELETE", "/tenants"],
      ["POST", "/health"],
      ["PATCH", "/api-keys/key_x"],
      ["OPTIONS", "/me"],
    ]) {
      const r = await s.call(method, p, { key: admin });
      expect([404, 405], `${method} ${p}`).toContain(r.status);
      expectDetail(r, r.status);
    }
  });
});
